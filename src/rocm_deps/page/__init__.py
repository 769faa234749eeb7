"""What GitHub's page shows of a description: its HTML (GitHub's own, or rendered by GitHub's
engine), parsed as a browser parses it, read as displayed lines."""
