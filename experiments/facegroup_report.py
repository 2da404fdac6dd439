"""Regenerate the claims table of the FACEGroup report (book/reports/facegroup.md).

The report opens with a claims table, but the book executes a page from top to
bottom, so the table's numbers ("ours") are read from
``book/data/facegroup/claims.json``. The report's last cell recomputes them and
fails the build when the file differs. This script executes the report once with
``FACEGROUP_WRITE_CLAIMS=1``, which makes that cell rewrite the file.

Usage (from the repository root, about two minutes)::

    PYTHONPATH=$PWD .venv/bin/python experiments/facegroup_report.py
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    env = dict(os.environ, FACEGROUP_WRITE_CLAIMS="1")
    subprocess.run([sys.executable, "tools/run_chapter.py", "book/reports/facegroup.md"], cwd=ROOT, env=env, check=True)
    print((ROOT / "book/data/facegroup/claims.json").read_text())
