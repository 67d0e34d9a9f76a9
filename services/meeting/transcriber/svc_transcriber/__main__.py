"""
Usage:
  python -m svc_transcriber verify                      check the model files against their pins
  python -m svc_transcriber piece AUDIO --start S       transcribe one piece; prints its JSON
  python -m svc_transcriber file AUDIO                  transcribe a whole recording piece by piece;
                                                        prints one JSON line per piece as it is done
  python -m svc_transcriber whole AUDIO                 the model alone on the whole file, no pieces (the
                                                        bench's reference; memory grows with the length)
Options: --max-seconds (a piece's length, at most 600; default 300), --lookahead (default 30),
--threads (CPU threads of the model; default 2), --stats (print this process's CPU seconds and peak
memory to stderr at the end, as JSON).
Exit status: 0 done, 2 bad arguments, 3 model files refused, 4 the audio cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys

from .audio import AudioUnreadable
from .model import ModelFilesRefused, default_model_folder, load_model, verify_model_files
from .output import piece_json
from .pieces import DEFAULT_LOOKAHEAD, DEFAULT_MAX_SECONDS


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="svc_transcriber", description="The meeting context's transcription worker.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("verify")
    for name in ("piece", "file", "whole"):
        command = commands.add_parser(name)
        command.add_argument("audio")
        command.add_argument("--stats", action="store_true")
        if name == "piece":
            command.add_argument("--start", type=float, required=True)
        command.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS)
        command.add_argument("--lookahead", type=float, default=DEFAULT_LOOKAHEAD)
        command.add_argument("--threads", type=int, default=2)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = arguments(argv)
    try:
        if args.command == "verify":
            folder = default_model_folder()
            verify_model_files(folder)
            print(json.dumps({"model": str(folder), "verified": True}))
            return 0
        model = load_model(cpu_threads=args.threads)
    except ModelFilesRefused as refused:
        print(f"svc_transcriber: {refused}", file=sys.stderr)
        return 3
    from .transcribe import transcribe_file, transcribe_piece, transcribe_whole

    try:
        if args.command == "piece":
            print(json.dumps(piece_json(transcribe_piece(model, args.audio, args.start, args.max_seconds, args.lookahead))), flush=True)
        elif args.command == "file":
            for result in transcribe_file(model, args.audio, args.max_seconds, args.lookahead):
                print(json.dumps(piece_json(result)), flush=True)
        else:
            print(json.dumps(piece_json(transcribe_whole(model, args.audio))), flush=True)
    except AudioUnreadable as unreadable:
        print(f"svc_transcriber: cannot read the audio: {unreadable}", file=sys.stderr)
        return 4
    except ValueError as bad:
        print(f"svc_transcriber: {bad}", file=sys.stderr)
        return 2
    if args.stats:
        print(json.dumps(process_stats()), file=sys.stderr)
    return 0


def process_stats() -> dict:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpuSeconds": round(usage.ru_utime + usage.ru_stime, 2), "peakRssMb": round(usage.ru_maxrss / 1024, 1)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
