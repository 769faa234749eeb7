"""The manifest comment: what each suite tested, on the pull request."""
