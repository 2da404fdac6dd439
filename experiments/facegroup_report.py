"""Regenerate the stored results of the FACEGroup report (book/reports/facegroup.md).

The report opens with a claims table, but the book executes a page from top to
bottom, so the table's numbers ("ours") are read from
``book/data/facegroup/claims.json``. The report's last cell recomputes them and
fails the build when the file differs. This script first recomputes the Adult
repetitions over 10 splits (``experiments/facegroup_adult_splits.py``, about a
minute; the page reads ``book/data/facegroup/adult_splits.csv``), then executes
the report once with ``FACEGROUP_WRITE_CLAIMS=1``, which makes its last cell
rewrite the claims file.

Usage (from the repository root, about two minutes)::

    PYTHONPATH=$PWD .venv/bin/python experiments/facegroup_report.py
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    subprocess.run([sys.executable, "experiments/facegroup_adult_splits.py"], cwd=ROOT, check=True)
    env = dict(os.environ, FACEGROUP_WRITE_CLAIMS="1")
    subprocess.run([sys.executable, "tools/run_chapter.py", "book/reports/facegroup.md"], cwd=ROOT, env=env, check=True)
    print((ROOT / "book/data/facegroup/claims.json").read_text())
