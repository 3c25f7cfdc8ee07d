"""A logistic regression fitted with statsmodels, standard errors clustered by group.

What :func:`tokstudy.analysis.model_errors.attribution.attribute_errors` fits: ``Logit`` by Newton's method with a
cluster-robust covariance (``cov_type="cluster"``), returned as plain arrays, or ``None`` with the
reason when the fit fails or diverges. statsmodels is imported only here, and only when a fit runs.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

#: a coefficient or CI bound beyond this log-odds (an odds ratio of e^30 = 1e13) means the fit diverged.
MAX_LOG_ODDS = 30.0


def full_rank(exog: np.ndarray) -> bool:
    """Whether ``exog`` has full column rank with a wide margin, from its small Gram matrix.

    statsmodels finds the rank from a pivoted QR of the whole ``(words, k)`` matrix, calling a column
    dependent when its ``|R_jj| <= k * eps * |R_11|``. Every ``|R_jj|`` is at least the smallest
    singular value and ``|R_11|`` at most the largest, so singular values within a ratio of
    ``1e-4`` (the Gram matrix's eigenvalues within ``1e-8``, far above its rounding error) mean
    full rank for statsmodels too, and its check (as costly as a fit) can be skipped with the same
    degrees of freedom. Otherwise statsmodels checks.
    """
    if exog.shape[0] < exog.shape[1]:
        return False
    eig = np.linalg.eigvalsh(exog.T @ exog)
    return bool(eig[-1] > 0 and eig[0] > 1e-8 * eig[-1])


def one_blas_thread():
    """BLAS limited to one thread: the fits' products are small, and threads that wait for work
    cost more CPU than they save (ten times the time under load); results are the same."""
    # deferred: statsmodels (~0.5 s with scipy, pandas) only when a model is fitted; threadpoolctl with it
    import statsmodels.discrete.discrete_model  # noqa: F401  first: the limit covers only BLAS libraries loaded
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def fit_logit(y: np.ndarray, x: np.ndarray, groups: np.ndarray, confidence: float, start: np.ndarray | None = None):
    """Coefficients, cluster-robust CIs and p-values of a logit with intercept (None if it fails).

    ``start`` (intercept first; default: the intercept-only solution) only saves Newton steps: the fit
    stops when a step moves no coefficient by more than 1e-8, so the estimates agree with a fit from
    statsmodels' own start to about 1e-15. Newton's method has no line search, and from that start it
    can overshoot where statsmodels' own start converges (seen on a cpu study's CoNLL-2003 predictions:
    a singular Hessian); a fit that fails or does not converge is therefore tried again from
    statsmodels' start before it is declared failed.
    """
    exog = np.column_stack([np.ones(len(y)), x])
    if start is None:
        start = np.zeros(exog.shape[1])
        rate = float(y.mean()) if len(y) else 0.0
        if 0 < rate < 1:
            start[0] = math.log(rate / (1 - rate))  # the intercept-only fit
    check_rank = not full_rank(exog)
    result, reason = _fit(y, exog, groups, confidence, start, check_rank)
    if result is None:
        result, reason = _fit(y, exog, groups, confidence, None, check_rank)
    return result, reason


def _fit(y, exog, groups, confidence: float, start: np.ndarray | None, check_rank: bool):
    # deferred: statsmodels (~0.5 s), only when a model is fitted; not statsmodels.api: it imports everything
    from statsmodels.discrete.discrete_model import Logit
    from statsmodels.tools.sm_exceptions import PerfectSeparationError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = Logit(y, exog, check_rank=check_rank).fit(
                start_params=start,
                disp=0,
                method="newton",
                maxiter=100,
                cov_type="cluster",
                cov_kwds={"groups": groups},
            )
        except (PerfectSeparationError, np.linalg.LinAlgError, ValueError, ArithmeticError) as exc:
            return None, f"{type(exc).__name__}: {exc}"
    ci = np.asarray(fit.conf_int(alpha=1 - confidence))
    if not fit.mle_retvals.get("converged", True):
        return None, "the maximum-likelihood fit did not converge (separation?)"
    if not (np.all(np.isfinite(ci)) and np.all(np.isfinite(fit.params))) or np.abs(ci).max() > MAX_LOG_ODDS:
        return None, "estimates diverge (quasi-separation: some covariate pattern has no error, or only errors)"
    return (np.asarray(fit.params), ci, np.asarray(fit.pvalues)), ""
