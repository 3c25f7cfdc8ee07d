"""The thread limit of the study's engines, without Dask: one list of variables, set or handed over."""

from __future__ import annotations

import os

import pytest

from tokstudy.study.executors import THREAD_VARS, limit_threads, local_worker_envs, thread_env

#: the variables that OpenMP, MKL and OpenBLAS read for their thread counts, spelled independently of the module
LIBRARY_VARS = {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"}


def test_thread_env_names_each_librarys_variable():
    assert thread_env(3) == {var: "3" for var in LIBRARY_VARS} and set(THREAD_VARS) == LIBRARY_VARS


def test_limit_threads_sets_in_this_process_what_thread_env_hands_a_worker(monkeypatch: pytest.MonkeyPatch):
    for var in LIBRARY_VARS:
        monkeypatch.setenv(var, "99")  # restored after the test, whatever limit_threads sets
    limit_threads(2)
    assert {var: os.environ[var] for var in LIBRARY_VARS} == thread_env(2)


def test_a_local_workers_environment_is_its_share_of_the_cores_and_its_own_device():
    envs = local_worker_envs(3, ["5", "6", "7"], 7)
    assert envs == [{**thread_env(2), "CUDA_VISIBLE_DEVICES": d} for d in ("5", "6", "7")]
    without_gpus = local_worker_envs(2, [], 1)
    assert without_gpus == [thread_env(1), thread_env(1)] and without_gpus[0] is not without_gpus[1]
