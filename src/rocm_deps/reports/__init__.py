"""What every command's report shares: the Markdown of job summaries (`markdown`: quoted input
escaped) and how a report reaches its channels (`output.publish`: step outputs, the summary,
the JSON or text on stdout). Each command's own report lives in its folder (`resolve/report.py`,
`install/report.py`, ...). Data in, strings out.
"""
