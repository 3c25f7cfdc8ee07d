# Two commands do everything on a fresh clone (see README.md):
#   make demo   set up .venv and run the main job on bundled defaults
#   make test   set up .venv and run the whole test suite
# (`make lint` runs ruff's checks; CI runs it before the tests.)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
DATA   ?= $(if $(TOKSTUDY_DATA),$(TOKSTUDY_DATA),$(wildcard ../shared/data))
PYTEST_ARGS ?=
# Two pytest workers (pytest-xdist), a test file per worker: 8 min 5 s instead of 12 min 20 s on 2 cores
# (measured 2026-11-26, BENCHMARKS.md); PYTEST_WORKERS=0 runs in one process. The files with a slow test are
# handed out first (tests/conftest.py orders them; --no-loadscope-reorder keeps that order), so that the short
# files even out the end. --durations=30 prints the 30 slowest tests, so CI's log says where the suite's time goes.
PYTEST_WORKERS ?= 2

.PHONY: setup demo test lint app bench clean gpu-wheels gpu-check

setup: $(STAMP)

# torch is pinned in pyproject (CPU wheel here, normal build elsewhere). deepspeed's sdist
# imports torch while building, so it is installed without build isolation after torch;
# DS_BUILD_OPS=0 keeps its C++/CUDA ops just-in-time.
$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip setuptools wheel
	$(PIP) install --quiet -e ".[pretrain,app,dev]"
	DS_BUILD_OPS=0 $(PIP) install --quiet --no-build-isolation "deepspeed==0.19.8"
	touch $(STAMP)

demo: setup
	TOKSTUDY_DATA=$(DATA) $(VENV)/bin/tokstudy study demo

test: setup
	TOKSTUDY_DATA=$(DATA) $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=30 $(PYTEST_ARGS)

# ruff: lint (pycodestyle, pyflakes, import order) and the formatter's check; config in pyproject.toml.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# on this machine only (127.0.0.1); `make app APP_ADDRESS=0.0.0.0` serves on the network (see docs/app.md)
app: setup
	TOKSTUDY_DATA=$(DATA) $(VENV)/bin/streamlit run analysis_app/server.py \
		--server.address $(or $(APP_ADDRESS),127.0.0.1) -- --results results/demo

bench: setup
	TOKSTUDY_DATA=$(DATA) $(PY) benchmarks/run_all.py

# A GPU machine (docs/gpu.md). Here: `make gpu-wheels` fills .gpu-carry/ (the wheels the GPU image lacks,
# a slice of the data); carry it with the working tree. There: `make gpu-check` (its own python3, which has
# torch; no venv, no network) runs every GPU step under its time limit and writes $(GPU_OUT)/summary.md;
# `make gpu-check STUDY=1` runs the gpu-check study; `make gpu-check STUDY=lease` the one-lease study (<= 9 minutes);
# `make gpu-check ONLY=bench-512,export` re-runs some steps. `make gpu-check DRY_RUN=1` (here, CPU) prepares and
# checks the folder and runs the same steps at toy sizes (with STUDY=lease: that study at toy sizes).
GPU_CARRY  ?= .gpu-carry
GPU_OUT    ?= $(if $(OUT),$(OUT),results/gpu-check)
GPU_PYTHON ?= python3
GPU_STUDY   = $(if $(STUDY),--study $(if $(filter 1,$(STUDY)),check,$(STUDY)))

gpu-wheels: setup
	$(PY) benchmarks/gpu_check.py prepare --carry $(GPU_CARRY) --data $(DATA)

ifeq ($(DRY_RUN),1)
gpu-check: gpu-wheels
	$(PY) benchmarks/gpu_check.py run --dry-run --carry $(GPU_CARRY) --out $(GPU_OUT) --python $(PY) $(if $(filter lease,$(STUDY)),--study lease) $(if $(ONLY),--only $(ONLY))
else
gpu-check:
	$(GPU_PYTHON) benchmarks/gpu_check.py run --carry $(GPU_CARRY) --out $(GPU_OUT) $(GPU_STUDY) $(if $(ONLY),--only $(ONLY))
endif

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
