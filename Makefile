# RecourseLab: `make book` builds the executed book, `make test` runs the tests.
# Both create .venv with the pinned requirements when it is missing or out of date.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book book-student test bench cec-results clean help chapter lab

help:
	@echo "make book   build the book with every chapter executed into _build/html (fails on any cell error or warning)"
	@echo "make book-student  the student edition: the same book without the solutions (pages and .md/.ipynb downloads), into _build/student/html"
	@echo "make test   lint (ruff, configured in pyproject.toml; actionlint on .github/workflows) and run the recourselab test suite (pytest on both cores)"
	@echo "make bench  run the benchmarks in benchmarks/, print their tables and store them in benchmarks/results/ (read by the performance appendix)"
	@echo "make cec-results  recompute the explanation-consistency lesson's and report's stored 5-fold results (about 20 min on 2 cores)"
	@echo "make chapter CH=fair_ranking  execute one chapter (or several: CH=\"a b\") as the book build does, without building the book"
	@echo "make lab    open JupyterLab in the repository, chapters (.md) opening as notebooks (any HOME; LAB_ARGS=\"--no-browser --port=8899\" to pass options)"
	@echo "make clean  remove _build (keeps .venv)"

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $(STAMP)

# The rebuilt lessons' visible cells also run alone in a fresh kernel (tools/run_alone.py) on the second core
# while the book builds; their outputs are then compared with the book's.
book: $(STAMP)
	rm -rf _build/html _build/.doctrees _build/alone
	mkdir -p _build
	$(BIN)/python tools/run_alone.py --execute > _build/alone.log 2>&1 & alone=$$!; \
	$(BIN)/jupyter-book build . --all -W -n --keep-going; built=$$?; \
	wait $$alone; grep -v "Kernel is running" _build/alone.log; test $$built -eq 0
	$(BIN)/python tools/run_alone.py --compare
	$(BIN)/python tools/check_html.py _build/html

# The student edition: _config.yml with sphinx-exercise's hide_solutions and _toc.yml without the
# instructors' page (tools/student_config.py),
# built apart from the full book, then checked: no solution left in the pages or downloads, and every
# chapter offers its executed .ipynb (tools/check_html.py).
STUDENT := _build/student

book-student: $(STAMP)
	rm -rf $(STUDENT)
	$(BIN)/python tools/student_config.py $(STUDENT)
	$(BIN)/jupyter-book build . --all -W -n --keep-going --config $(STUDENT)/_config.yml --toc $(STUDENT)/_toc.yml \
		--path-output $(STUDENT)
	mv $(STUDENT)/_build/html $(STUDENT)/html
	$(BIN)/python tools/check_html.py --student $(STUDENT)/html

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/actionlint .github/workflows/*.yml
	$(BIN)/python -m pytest -n 2

bench: $(STAMP)
	@for script in benchmarks/[!_]*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

cec-results: $(STAMP)
	$(BIN)/python experiments/cec_experiments.py
	$(BIN)/python experiments/cec_report.py
	$(BIN)/python experiments/cec_report.py thresholds

clean:
	rm -rf _build

# JupyterLab reads .jupyter/labconfig only when HOME is the repository (as on Binder); `make lab`
# installs the same setting (open .md files with the Jupytext Notebook viewer) into the venv's
# JupyterLab settings, so chapters open as notebooks from any HOME.
LAB_SETTING := $(VENV)/share/jupyter/lab/settings/overrides.d/recourselab.json
LAB_ARGS ?=

$(LAB_SETTING): .jupyter/labconfig/default_setting_overrides.json $(STAMP)
	@mkdir -p $(dir $@)
	cp $< $@

lab: $(STAMP) $(LAB_SETTING)
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" $(LAB_ARGS)

chapter: $(STAMP)
	$(BIN)/python tools/run_chapter.py $(addprefix book/,$(addsuffix .md,$(CH)))
