# Every target creates .venv and installs pinned dependencies itself.
PY      ?= python3.11
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# Apt packages: software OpenGL for the renderer (EGL, Mesa llvmpipe), espeak-ng
# for the judge's spoken calls in the synthetic sound track, and
# Chromium for the browser tests. Installed only by the targets that need them.
RENDER_APT  := libegl1 libegl-mesa0 libgl1-mesa-dri libgles2 espeak-ng
BROWSER_APT := chromium chromium-driver
# The sqlite3 shell: the store-integrity test edits review.db with it, as a user could.
SHELL_APT   := sqlite3

.PHONY: venv test test-fast lint demo sample render-deps browser-deps shell-deps bench eval clean

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements.lock
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

# Installs OS libraries only when missing, so a developer machine that has
# them (or has no root) is not touched.
render-deps:
	@$(PY) scripts/need_apt.py $(RENDER_APT) || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(RENDER_APT); }

browser-deps:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_APT); }

shell-deps:
	@command -v sqlite3 >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SHELL_APT); }

test: venv render-deps browser-deps shell-deps lint
	$(BIN)/python -m pytest

# ruff and mypy, configured in pyproject.toml; `make test` runs them first.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy

test-fast: venv
	$(BIN)/python -m pytest -m "not slow and not browser"

demo: venv
	$(BIN)/mafvar demo

# Re-renders the committed sample game (needs the renderer's OS libraries).
sample: venv render-deps
	$(BIN)/mafvar synth --seed 7 --out sample_videos/demo --force --crf 27 \
	  --inject mask_late,peek,false_shot,early_vote,early_lift,wrong_form,late_vote,touch_day,stand_up,miscount

bench: venv
	$(BIN)/mafvar bench sample_videos/demo

eval: venv
	$(BIN)/mafvar eval sample_videos/demo

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
