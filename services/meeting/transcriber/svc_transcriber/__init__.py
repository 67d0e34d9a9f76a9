"""The transcription worker of the meeting context (docs/transcription.md)."""
