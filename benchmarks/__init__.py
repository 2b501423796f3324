"""Speed measurements of qtheory (scripts, not tests); see README.md."""
