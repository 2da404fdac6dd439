"""Bad input to every public function of recourselab.allocation: one table (function, arguments, error, message).

Each case must raise the package's own error (wrong type: TypeError; wrong value: ValueError), with a
message naming the argument, never an error from inside numpy, pandas or scikit-learn.
``utility_ce_naive`` is the literal version of paper.py and, like the rest of paper.py, does no
validation beyond what correctness needs.
"""

import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from recourselab import allocation as al
from recourselab.features import Encoder, FeatureSpec

LEND = al.LendingUtility(G1=0.05, G2=1, C=0.2)
ADM = al.AdmissionUtility(G=1, C=0.6)
BUDGETS = al.BudgetDistribution(1, 1)
M = [0.8, 0.7, 0.6, 0.5]
NAN, INF = float("nan"), float("inf")

# a small encoded world for the feature counterfactual: age (never advised), savings (up one level), sex (immutable)
FRAME = pd.DataFrame({"age": [20, 30, 40, 50, 60, 35], "savings": [0, 1, 2, 3, 1, 2],
                      "sex": ["f", "m", "f", "m", "f", "m"]})
ENC = Encoder([FeatureSpec("age", "continuous", "increase", advise="never"),
               FeatureSpec("savings", "ordinal", "increase", order=[0, 1, 2, 3], max_change=1),
               FeatureSpec("sex", "binary", "immutable", order=["f", "m"])]).fit(FRAME)
Z = ENC.transform(FRAME)
MODEL = LogisticRegression(C=100).fit(Z, (FRAME["savings"] >= 2).astype(int))
SEX_CHANGED = Z[0].copy()
SEX_CHANGED[1:] = [1 / 3, 1.0]                       # one level more savings, and the other sex


def mc(m_i=0.5, w_i=1, sampler=None, n=5, rho=0.5, **kw):
    kw.setdefault("policy", "greedy")
    return al.monte_carlo_recourse(m_i, w_i, sampler or (lambda g: ([0.6], None, 1, ADM)), n, rho, **kw)


def experiment(proba=(0.5, 0.6), problems=((0, 1),), **kw):
    kw = {"policy": "greedy", "utility": ADM, "budget_distribution": BUDGETS, **kw}
    return al.robustness_experiment(list(proba), None, problems=[list(p) for p in problems], **kw)


def breakdown(proba=M, weights=(4, 3, 2, 1), capacities=(6,), problems=((0, 1),)):
    return al.refusal_breakdown(list(proba), list(weights), list(capacities), [list(p) for p in problems],
                                policy="knapsack", utility=LEND)


CASES = [
    # ------------------------------------------------------------------ utilities
    (lambda: al.lending_utility(1.5, 4, 0.05, 1, 0.2), ValueError, r"m=1.5 is above 1"),
    (lambda: al.lending_utility(INF, 4, 0.05, 1, 0.2), ValueError, r"m=inf is infinite"),
    (lambda: LEND.value([0.5, NAN], [4, 3]), ValueError, r"m\[1\]=nan is missing"),
    (lambda: LEND.value([0.5, 1.2], [4, 3]), ValueError, r"m\[1\]=1.2 is above 1"),
    (lambda: al.admission_utility([-0.1, 0.5], G=1, C=0.6), ValueError, r"m\[0\]=-0.1 is below 0"),
    (lambda: al.lending_utility(0.5, None, 0.05, 1, 0.2), TypeError, r"credit=None"),
    (lambda: al.lending_utility("0.5", 4, 0.05, 1, 0.2), TypeError, r"m='0.5'; give numbers"),
    (lambda: al.lending_utility(["a"], [4], 0.05, 1, 0.2), TypeError, r"m holds strings"),
    (lambda: al.lending_utility([], [], 0.05, 1, 0.2), ValueError, r"credit is empty"),
    (lambda: al.lending_utility([0.5, 0.6, 0.7], [4, 3], 0.05, 1, 0.2), ValueError,
     r"m has shape \(3,\) and credit has shape \(2,\)"),
    (lambda: al.lending_utility(0.5, -1, 0.05, 1, 0.2), ValueError, r"credit=-1.0 is below 0"),
    (lambda: al.lending_probability(0.1, [0, 10], G1=0.05, G2=-0.5, C=0.2), ValueError,
     r"credit\*\(G1 \+ C\) \+ G2 = -0.5 <= 0 for credit\[0\]=0"),
    (lambda: al.lending_probability(-INF, 4, G1=0.05, G2=1, C=0.2), ValueError, r"v=-inf: a utility of -inf"),
    (lambda: al.lending_probability([0.1, 0.2], [4, 3, 2], G1=0.05, G2=1, C=0.2), ValueError,
     r"v has shape \(2,\) and credit has shape \(3,\)"),
    (lambda: al.admission_probability(NAN, 1, 0.6), ValueError, r"v=nan is missing"),
    (lambda: al.admission_probability("x", 1, 0.6), TypeError, r"v='x'; give numbers"),
    (lambda: al.LendingUtility(G1=1.5, G2=1, C=0.2), ValueError, r"G1=1.5 must be <= 1"),
    (lambda: al.LendingUtility(G1="a", G2=1, C=0.2), TypeError, r"G1='a' must be a number"),
    (lambda: al.LendingUtility(G1=0.05, G2=NAN, C=0.2), ValueError, r"G2=nan must be a finite number"),
    (lambda: al.lending_utility(0.5, 1, 0.05, 1, -0.1), ValueError, r"C=-0.1 must be >= 0"),
    (lambda: al.LendingUtility(G1=0, G2=0, C=0), ValueError, r"G1 \+ C = 0 and G2=0"),
    (lambda: al.AdmissionUtility(G=0, C=1), ValueError, r"G=0 must be > 0"),
    (lambda: al.AdmissionUtility(G=None, C=1), TypeError, r"G=None must be a number"),
    (lambda: al.admission_probability(0.2, G=1, C=-1), ValueError, r"C=-1 must be >= 0"),
    (lambda: LEND.value([0.5], None), TypeError, r"weights=None; the lending utility needs"),
    (lambda: LEND.probability([0.5], None), TypeError, r"weights=None; the lending utility needs"),
    (lambda: al.lending_utility(pd.Series([0.5, 0.6], index=[1, 2]), pd.Series([4, 3], index=[2, 1]), 0.05, 1, 0.2),
     ValueError, r"credit has a different index from m"),
    # ------------------------------------------------------------------ policies
    (lambda: al.knapsack([1.0, 2.0], [1, -2], 3), ValueError, r"weights\[1\]=-2(\.0)? is below 0"),
    (lambda: al.knapsack([1.0, 2.0], [1.5, 2], 3), ValueError, r"weights\[0\]=1.5 is not a whole number"),
    (lambda: al.knapsack([1.0], [1], -1), ValueError, r"capacity=-1(\.0)? is below 0"),
    (lambda: al.knapsack([1.0], [1], INF), ValueError, r"capacity=inf is infinite"),
    (lambda: al.knapsack([1.0], [1], "6"), TypeError, r"capacity='6'; give numbers"),
    (lambda: al.knapsack([1.0], [1], [6]), ValueError, r"capacity has shape \(1,\); give a single number"),
    (lambda: al.knapsack([1.0, 2.0], [1, 2, 3], 3), ValueError, r"weights has 3 entries but there are 2 applicants"),
    (lambda: al.knapsack([1.0, NAN], [1, 1], 3), ValueError, r"values\[1\]=nan is missing"),
    (lambda: al.knapsack([1.0, INF], [1, 1], 3), ValueError, r"values\[1\]=inf is infinite"),
    (lambda: al.knapsack([], [], 3), ValueError, r"values is empty"),
    (lambda: al.knapsack("abc", [1], 1), TypeError, r"values='abc'; give numbers"),
    (lambda: al.knapsack(["a", "b"], [1, 1], 1), TypeError, r"values holds strings"),
    (lambda: al.knapsack([[1.0, 2.0]], [1], 1), ValueError, r"values has shape \(1, 2\); give a 1-d array"),
    (lambda: al.knapsack([1.0], [True], 1), TypeError, r"weights holds booleans"),
    (lambda: al.knapsack([1.0], None, 1), TypeError, r"weights=None; the knapsack policy needs"),
    (lambda: al.knapsack([1.0], [[1]], 1), ValueError, r"weights has shape \(1, 1\); give a 1-d array"),
    (lambda: al.knapsack(pd.Series([1.0, 2.0], index=["a", "b"]), pd.Series([1, 2], index=["b", "a"]), 3), ValueError,
     r"weights has a different index from values"),
    (lambda: al.greedy([], 2), ValueError, r"values is empty"),
    (lambda: al.greedy([1.0], 2.5), ValueError, r"capacity=2.5 is not a whole number"),
    (lambda: al.greedy([1.0], None), TypeError, r"capacity=None"),
    (lambda: al.allocate([1.0, 2.0], [1, 3], 2, policy="greedy"), ValueError,
     r"weights\[1\]=3 but the greedy policy gives every applicant one slot"),
    (lambda: al.allocate([1.0], [1], 1, policy="fifo"), ValueError, r"policy='fifo' is not one of"),
    # ------------------------------------------------------------------ counterfactual explanations
    (lambda: al.utility_ce([1.0], [1], 2.5), ValueError, r"capacity=2.5 is not a whole number"),
    (lambda: al.utility_ce([1.0], [1], 1, eps=0), ValueError, r"eps=0(\.0)? must be > 0"),
    (lambda: al.utility_ce([1.0], [1], 1, eps="x"), TypeError, r"eps='x' must be a number"),
    (lambda: al.utility_ce([1.0], [1], 1, policy=None), ValueError, r"policy=None is not one of"),
    (lambda: al.utility_ce([], None, 1, policy="greedy"), ValueError, r"values is empty"),
    (lambda: al.prediction_ce_matrix([0.5, 0.6], [1, 1], [2, -3], policy="knapsack", utility=LEND), ValueError,
     r"capacities\[1\]=-3(\.0)? is below 0"),
    (lambda: al.prediction_ce_matrix([0.5, 1.3], None, [1], policy="greedy", utility=ADM), ValueError,
     r"proba\[1\]=1.3 is above 1"),
    (lambda: al.prediction_ce_matrix([INF, 0.3], None, [1], policy="greedy", utility=ADM), ValueError,
     r"proba\[0\]=inf is infinite"),
    (lambda: al.prediction_ce_matrix([], None, [1], policy="greedy", utility=ADM), ValueError, r"proba is empty"),
    (lambda: al.prediction_ce_matrix(["a"], None, [1], policy="greedy", utility=ADM), TypeError,
     r"proba holds strings"),
    (lambda: al.prediction_ce_matrix([0.5, 0.6], [1], [1], policy="knapsack", utility=LEND), ValueError,
     r"weights has 1 entries but there are 2 applicants"),
    (lambda: al.prediction_ce_matrix([0.5], None, [], policy="greedy", utility=ADM), ValueError,
     r"capacities is empty"),
    (lambda: al.prediction_ce_matrix([0.5], None, [[1, 2]], policy="greedy", utility=ADM), ValueError,
     r"capacities has shape \(1, 2\)"),
    (lambda: al.prediction_ce_matrix([0.5], None, [1.5], policy="greedy", utility=ADM), ValueError,
     r"capacities\[0\]=1.5 is not a whole number"),
    (lambda: al.prediction_ce_matrix([0.5], None, [1], policy="greedy", utility="lending"), TypeError,
     r"utility must be"),
    (lambda: al.prediction_ce([0.1], "lending"), TypeError, r"utility must be"),
    (lambda: al.prediction_ce([0.1, NAN], ADM), ValueError, r"v_prime\[1\]=nan is missing"),
    (lambda: al.prediction_ce([0.1, 0.2], LEND, [4, 3, 2]), ValueError, r"v has shape \(2,\) and credit has shape"),
    (lambda: al.prediction_ce_matrix(pd.Series([0.5, 0.6]), pd.Series([1, 2], index=[5, 6]), [1], policy="knapsack",
                                     utility=LEND), ValueError, r"weights has a different index from proba"),
    (lambda: al.utility_ce(pd.Series([0.5, 0.6]), pd.Series([1, 2], index=[1, 0]), 1), ValueError,
     r"weights has a different index from values"),
    (lambda: al.prediction_cost(pd.Series([0.5]), pd.Series([0.7], index=[3])), ValueError,
     r"m_prime has a different index from m"),
    (lambda: al.prediction_cost([1.1], [0.5]), ValueError, r"m\[0\]=1.1 is above 1"),
    (lambda: al.prediction_cost([0.5], [-0.2]), ValueError, r"m_prime\[0\]=-0.2 is below 0"),
    (lambda: al.prediction_cost([0.5], [NAN]), ValueError, r"m_prime\[0\]=nan is missing"),
    (lambda: al.prediction_cost([0.5, 0.6], [0.7, 0.8, 0.9]), ValueError,
     r"m has shape \(2,\) but m_prime has shape \(3,\)"),
    (lambda: al.prediction_cost("a", [0.5]), TypeError, r"m='a'; give numbers"),
    # ------------------------------------------------------------------ robust recourse and validity
    (lambda: al.robust_recourse([[0.5]], 1.5), ValueError, r"rho=1.5 must lie in \[0, 1\]"),
    (lambda: al.robust_recourse([[0.5]], NAN), ValueError, r"rho=nan must lie in \[0, 1\]"),
    (lambda: al.robust_recourse([[0.5]], INF), ValueError, r"rho=inf must lie in \[0, 1\]"),
    (lambda: al.robust_recourse([[0.5]], "0.5"), ValueError, r"rho='0.5' must lie in \[0, 1\]"),
    (lambda: al.robust_recourse([[0.5], [-0.3]], 0.5), ValueError, r"ce_samples\[1, 0\]=-0.3 is below 0"),
    (lambda: al.robust_recourse([[NAN]], 0.5), ValueError, r"ce_samples\[0, 0\]=nan is missing"),
    (lambda: al.robust_recourse([], 0.5), ValueError, r"ce_samples is empty"),
    (lambda: al.robust_recourse([[[0.5]]], 0.5), ValueError, r"ce_samples has shape \(1, 1, 1\)"),
    (lambda: al.robust_recourse("a", 0.5), TypeError, r"ce_samples='a'; give numbers"),
    (lambda: mc(m_i=1.5), ValueError, r"m_i=1.5 is above 1"),
    (lambda: mc(m_i=NAN), ValueError, r"m_i=nan is missing"),
    (lambda: mc(m_i="0.5"), TypeError, r"m_i='0.5'; give numbers"),
    (lambda: mc(rho=-0.1), ValueError, r"rho=-0.1 must lie in \[0, 1\]"),
    (lambda: mc(sampler=lambda g: ([0.6, 1.4], None, 1, ADM)), ValueError, r"others_proba\[1\]=1.4 is above 1"),
    (lambda: mc(sampler=lambda g: ([0.6, NAN], None, 1, ADM)), ValueError, r"others_proba\[1\]=nan is missing"),
    (lambda: mc(sampler=lambda g: ([0.6], [2], 1, ADM)), ValueError,
     r"others_weights\[0\]=2 but the greedy policy gives every applicant one slot"),
    (lambda: mc(sampler=lambda g: ([0.6], [1, 2], 1, LEND), policy="knapsack"), ValueError,
     r"others_weights has 2 entries but there are 1 applicants"),
    (lambda: mc(sampler=lambda g: ([0.6], None, 1.5, ADM)), ValueError,
     r"capacity \(from sampler\)=1.5 is not a whole number"),
    (lambda: mc(sampler=lambda g: ([0.6], None, 1)), TypeError, r"sampler\(rng\) must return a tuple"),
    (lambda: mc(sampler=lambda g: ([0.6], None, 1, "u")), TypeError, r"utility must be"),
    (lambda: mc(sampler="rounds"), TypeError, r"sampler must be a function"),
    (lambda: mc(n=5.0), TypeError, r"n_samples=5.0 must be an integer"),
    (lambda: mc(n=0), ValueError, r"n_samples=0 must be at least 1"),
    (lambda: mc(w_i=1.5, policy="knapsack"), ValueError, r"w_i=1.5 is not a whole number"),
    (lambda: mc(random_state=1.7), TypeError, r"random_state=1.7 must be None, an int seed"),
    (lambda: mc(eps=-1e-6), ValueError, r"eps=-1e-06 must be > 0"),
    (lambda: al.noisy_recourse([0.5], None, 1, 1.0, NAN, policy="greedy", utility=ADM), ValueError,
     r"p=nan must lie in \[0, 1\]"),
    (lambda: al.noisy_recourse([0.5], None, 1, 1.0, 2, policy="greedy", utility=ADM), ValueError,
     r"p=2 must lie in \[0, 1\]"),
    (lambda: al.noisy_recourse([0.5], None, 1, 1.0, 0.5, policy="greedy", utility=ADM, random_state=1.7), TypeError,
     r"random_state=1.7 must be None, an int seed"),
    (lambda: al.noisy_recourse([0.5], None, 1, 1.0, 0.5, policy="greedy", utility=ADM, random_state=-1), ValueError,
     r"random_state=-1 must be an int >= 0"),
    (lambda: al.noisy_recourse([0.5], None, 1, 1.0, 0.5, policy="greedy", utility=ADM, n_samples=200.0),
     TypeError, r"n_samples=200.0 must be an integer"),
    (lambda: al.noisy_recourse([0.5], None, 1, -1.0, 0.5, policy="greedy", utility=ADM), ValueError,
     r"sigma=-1 must be >= 0"),
    (lambda: al.noisy_recourse([0.5], None, 1, "1", 0.5, policy="greedy", utility=ADM), TypeError,
     r"sigma='1' must be a number"),
    (lambda: al.noisy_recourse([0.5], None, 1.5, 1.0, 0.5, policy="greedy", utility=ADM), ValueError,
     r"capacity=1.5 is not a whole number"),
    (lambda: al.validity(pd.Series([0.9, 0.8], index=[1, 0]), pd.Series([0.5, 0.6]), None, [1], policy="greedy",
                         utility=ADM), ValueError, r"m_new has a different index from proba"),
    (lambda: al.validity([0.5], [0.5, 0.6], None, [1], policy="greedy", utility=ADM), ValueError,
     r"m_new has shape \(1,\) but the pool has 2 applicants"),
    (lambda: al.validity([NAN], [0.5], None, [1], policy="greedy", utility=ADM), ValueError,
     r"m_new\[0\]=nan is missing"),
    (lambda: al.validity([-0.5], [0.5], None, [1], policy="greedy", utility=ADM), ValueError,
     r"m_new\[0\]=-0.5 is below 0"),
    (lambda: al.validity(["a"], [0.5], None, [1], policy="greedy", utility=ADM), TypeError, r"m_new holds strings"),
    (lambda: al.BudgetDistribution.fit([200]), ValueError, r"at least 2 historical budgets"),
    (lambda: al.BudgetDistribution.fit([]), ValueError, r"budgets is empty"),
    (lambda: al.BudgetDistribution.fit([1.0, NAN]), ValueError, r"budgets\[1\]=nan is missing"),
    (lambda: al.BudgetDistribution.fit("100"), TypeError, r"budgets='100'; give numbers"),
    (lambda: al.BudgetDistribution(10, -1), ValueError, r"std=-1 must be >= 0"),
    (lambda: al.BudgetDistribution("10", 1), TypeError, r"mean='10' must be a number"),
    (lambda: al.BudgetDistribution(INF, 1), ValueError, r"mean=inf must be a finite number"),
    (lambda: al.BudgetDistribution(10, 2).sample(2.5), TypeError, r"n=2.5 must be an integer"),
    (lambda: al.BudgetDistribution(10, 2).sample(-1), ValueError, r"n=-1 must be at least 0"),
    # ------------------------------------------------------------------ refusals and the Table 3 experiment
    (lambda: al.refusal_reasons([1.0, "a"], None, 1, policy="greedy"), TypeError, r"values holds strings"),
    (lambda: al.refusal_reasons([1.0, None], None, 1, policy="greedy"), ValueError, r"values\[1\]=nan is missing"),
    (lambda: al.refusal_reasons([1.0, 2.0], [1], 1), ValueError, r"weights has 1 entries but there are 2"),
    (lambda: al.refusal_reasons([1.0], [1], 1, policy="lottery"), ValueError, r"policy='lottery' is not one of"),
    (lambda: al.refusal_breakdown(pd.Series(M), pd.Series([4, 3, 2, 1], index=[3, 2, 1, 0]), [6], [[0, 1]],
                                  policy="knapsack", utility=LEND), ValueError,
     r"weights has a different index from proba"),
    (lambda: breakdown(capacities=(6, 7)), ValueError, r"one budget per round"),
    (lambda: breakdown(problems=()), ValueError, r"problems is empty"),
    (lambda: breakdown(problems=((0, 9),)), ValueError, r"problems\[0\]\[1\]=9 is not a row position \(0..3\)"),
    (lambda: breakdown(problems=((0, 1, 1),)), ValueError, r"problems\[0\] repeats the positions \[1\]"),
    (lambda: breakdown(problems=((),)), ValueError, r"problems\[0\] is empty"),
    (lambda: breakdown(problems=((0.0, 1.0),)), TypeError, r"problems\[0\]\[0\]=0.0 must be an integer"),
    (lambda: breakdown(proba=(0.5, NAN), weights=(1, 1), capacities=(1,)), ValueError, r"proba\[1\]=nan is missing"),
    (lambda: breakdown(capacities=(6.5,)), ValueError, r"capacities\[0\]=6.5 is not a whole number"),
    (lambda: al.refusal_breakdown(M, [4, 3, 2, 1], [6], None, policy="knapsack", utility=LEND), TypeError,
     r"problems=None"),
    (lambda: experiment(rhos=(0.7, 0.7)), ValueError, r"rhos repeats the level\(s\) \['0.7'\]"),
    (lambda: experiment(ps=(0.5, 1.5)), ValueError, r"ps=1.5 must lie in \[0, 1\]"),
    (lambda: experiment(rhos=None), TypeError, r"rhos=None"),
    (lambda: experiment(n_test=100.0), TypeError, r"n_test=100.0 must be an integer"),
    (lambda: experiment(n_validation=0), ValueError, r"n_validation=0 must be at least 1"),
    (lambda: experiment(proba=(0.5, 0.6, 2.0)), ValueError, r"proba\[2\]=2(\.0)? is above 1"),
    (lambda: experiment(proba=()), ValueError, r"proba is empty"),
    (lambda: experiment(problems=()), ValueError, r"problems is empty"),
    (lambda: experiment(problems=((0, 0),)), ValueError, r"problems\[0\] repeats the positions \[0\]"),
    (lambda: experiment(problems=((0, 5),)), ValueError, r"problems\[0\]\[1\]=5 is not a row position"),
    (lambda: experiment(budget_distribution=(1, 1)), TypeError, r"budget_distribution must be a BudgetDistribution"),
    (lambda: experiment(random_state="0"), TypeError, r"random_state='0' must be None, an int seed"),
    (lambda: al.pareto_dominance([[1, 2]]), TypeError, r"table must be a pandas DataFrame"),
    (lambda: al.pareto_dominance(pd.DataFrame({"cost": [1.0]})), ValueError, r"table lacks the column"),
    (lambda: al.pareto_dominance(pd.DataFrame({"cost": [NAN], "validity": [1.0]})), ValueError,
     r"cost\[0\]=nan is missing"),
    (lambda: al.pareto_dominance(pd.DataFrame({"cost": ["a"], "validity": [1.0]})), TypeError,
     r"cost must hold numbers"),
    (lambda: al.pareto_dominance(pd.DataFrame({"cost": [1.0, 2.0], "validity": [1.0, 1.0]}, index=["a", "a"])),
     ValueError, r"names a method more than once"),
    # ------------------------------------------------------------------ feature counterfactuals
    (lambda: al.feature_ce(MODEL, Z, 0, 0.9, ENC, candidates=[1.7, 3.0]), TypeError,
     r"candidates\[0\]=1.7 must be an integer"),
    (lambda: al.feature_ce(MODEL, Z, 0, 0.9, ENC, candidates=[0, 99]), ValueError,
     r"candidates\[1\]=99 is not a row position"),
    (lambda: al.feature_ce(MODEL, Z, 0, 0.9, ENC, candidates=[True, False]), ValueError,
     r"candidates has shape \(2,\); give one entry per row \(6\)"),
    (lambda: al.feature_ce(MODEL, Z, 0.0, 0.9, ENC), TypeError, r"index=0.0 must be an integer"),
    (lambda: al.feature_ce(MODEL, Z, 99, 0.9, ENC), ValueError, r"index=99 is not a row of Z \(0..5\)"),
    (lambda: al.feature_ce(MODEL, Z[:0], 0, 0.9, ENC), ValueError, r"index=0 is not a row of Z; Z has no rows"),
    (lambda: al.feature_ce(MODEL, Z, 0, -0.1, ENC), ValueError, r"m_prime=-0.1 must be >= 0"),
    (lambda: al.feature_ce(MODEL, Z, 0, NAN, ENC), ValueError, r"m_prime=nan must be a finite number"),
    (lambda: al.feature_ce(MODEL, Z, 0, "0.9", ENC), TypeError, r"m_prime='0.9' must be a number"),
    (lambda: al.feature_ce(MODEL, Z[:, :2], 0, 0.9, ENC), ValueError, r"Z has shape \(6, 2\); expected \(n_rows, 3\)"),
    (lambda: al.feature_ce(MODEL, pd.DataFrame(Z, columns=["age", "savings", "male"]), 0, 0.9, ENC), ValueError,
     r"Z has columns that do not match the 3 expected: missing \['sex'\], unexpected \['male'\]"),
    (lambda: al.feature_ce(MODEL, Z, 0, 0.9, ENC, norm="l3"), ValueError, r"norm='l3' is not one of"),
    (lambda: al.feature_ce(MODEL, Z, 0, 0.9, ENC, favourable=2), ValueError,
     r"favourable=2 is not among model's classes \[0, 1\]"),
    (lambda: al.feature_ce(object(), Z, 0, 0.9, ENC), TypeError, r"model object has no predict_proba"),
    (lambda: al.feature_ce(MODEL, Z, 0, 0.9, "encoder"), TypeError, r"encoder"),
    (lambda: al.graft_candidates(Z[1], Z, ENC, keep=["income"]), ValueError, r"keep names \['income'\], which are not"),
    (lambda: al.graft_candidates(Z[:2], Z, ENC), ValueError, r"z has 2 rows; give the one applicant"),
    (lambda: al.graft_candidates(Z[1], Z, ENC, keep=None), TypeError, r"keep=None"),
    (lambda: al.graft_candidates(Z[1], Z[:, :2], ENC), ValueError, r"Z has shape \(6, 2\)"),
    (lambda: al.prune_move(MODEL, Z[0], SEX_CHANGED, 0.0, ENC), ValueError,
     r"the move z_from -> z_to is not actionable: \{'sex': 'moves the wrong way'\}"),
    (lambda: al.prune_move(MODEL, Z[0], SEX_CHANGED, 0.0, ENC, actionable=False), ValueError,
     r"the move z_from -> z_to is not feasible: \{'sex': 'moves the wrong way'\}"),
    (lambda: al.prune_move(MODEL, Z[0], Z[0], 0.99, ENC), ValueError, r"z_to scores .* < m_prime=0.99"),
    (lambda: al.prune_move(MODEL, Z[0], Z[0], NAN, ENC), ValueError, r"m_prime=nan must lie in \[0, 1\]"),
    (lambda: al.prune_move(MODEL, Z[0], Z[0], 0.5, ENC, favourable="yes"), ValueError,
     r"favourable='yes' is not among model's classes"),
    (lambda: al.prune_move(MODEL, Z[:2], Z[:2], 0.5, ENC), ValueError, r"prune_move takes one row each"),
    (lambda: al.prune_move(object(), Z[0], Z[0], 0.5, ENC), TypeError, r"has no predict_proba"),
]


@pytest.mark.parametrize("call, error, message", CASES, ids=[f"case{k:03d}" for k in range(len(CASES))])
def test_bad_input_gets_the_package_error(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert type(info.value) is error  # not a subclass raised from inside numpy or pandas
