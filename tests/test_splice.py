"""qtheory._splice: a kernel template with one dispatch point, specialised on a rule."""

from pathlib import Path

import numpy as np
import pytest
from numba import njit

from qtheory import _splice
from qtheory.errors import SpliceError
from qtheory.utility.policies import REGISTRY, rule_of
from qtheory.utility.simulation import _kernel_template


def decide(a, b):  # the placeholder the templates below dispatch through
    raise NotImplementedError


def _template(a, b, out):
    total = 0
    for i in range(a.shape[0]):
        x = decide(a, b)
        out[i] = x
        total += x
    return total


@njit(cache=True)
def _twice(a, b):
    i = b * 2          # a local that would clash with the template's loop variable
    return a[0] + i


@njit
def _early(a, b):
    if b > 0:
        return 1
    return 2


@njit
def _wrong_args(a, c):
    return a[0]


def test_spliced_kernel_runs_the_rule_in_place_without_clashing_names():
    kernel = _splice.specialise(_template, _twice)
    out = np.zeros(3)
    a = np.array([1.0, 5.0, 7.0])
    assert kernel(a, 2, out) == 3 * (1.0 + 4)
    np.testing.assert_array_equal(out, [5.0, 5.0, 5.0])  # `i` of the rule did not overwrite the loop's


@pytest.mark.parametrize("rule, message", [(_early, "only `return"), (_wrong_args, r"takes `c`.*\(a, b\)")])
def test_rules_that_cannot_be_spliced_are_refused(rule, message):
    with pytest.raises(SpliceError, match=message):
        _splice.specialise(_template, rule)


def test_a_template_needs_exactly_one_dispatch_point():
    def no_dispatch(a, b):
        return a

    with pytest.raises(ValueError, match="exactly one"):
        _splice.specialise(no_dispatch, _twice)


def test_every_registered_utility_policy_splices_into_the_kernel():
    for name, cls in REGISTRY.items():
        text = _splice._source(_kernel_template, rule_of(cls))
        assert "decide(" not in text, name


def touch(c, d):  # a second placeholder
    raise NotImplementedError


def _two_points(a, b, out):
    total = 0
    for i in range(a.shape[0]):
        y = touch(b, i)
        x = decide(a, b)
        out[i] = x + y
        total += x
    return total


@njit(cache=True)
def _scaled(k, j):
    """Names its parameters as it likes: they become the template's b and i."""
    i = 100          # a local named like the template's loop variable
    return k * j + i


@njit
def _assigns_parameter(k, j):
    k = 1
    return k + j


def test_a_function_at_a_second_placeholder_takes_the_call_arguments():
    kernel = _splice.specialise(_two_points, _twice, {"touch": _scaled})
    out = np.zeros(3)
    a = np.array([1.0, 5.0, 7.0])
    assert kernel(a, 2, out) == 3 * (1.0 + 4)
    np.testing.assert_array_equal(out, [5.0 + 2 * i + 100 for i in range(3)])
    text = _splice._source(_two_points, _twice, {"touch": _scaled})
    assert "touch(" not in text and "decide(" not in text


def test_a_function_at_a_second_placeholder_may_not_assign_its_parameters():
    with pytest.raises(SpliceError, match="assigns to its parameter `k`"):
        _splice.specialise(_two_points, _twice, {"touch": _assigns_parameter})


# ---- a newcomer's mistakes (issue 31), each refused with the rule's own file and line ----
# The rules below are written for the L kernel (qtheory.locality.simulation), whose template
# passes (params, rng, i, state, offset, degree, neighbors, dispatcher_cluster, server_type,
# type_members, type_first, type_size) to `decide` and has variables of its own (`cap`, `t`, ...).

from qtheory.locality import simulation as _lsim  # noqa: E402
from qtheory.locality.policies import _ix, prefetch_list  # noqa: E402

cap = 2  # a module-level constant named like the L template's own `cap`


def _line(marker: str) -> int:
    """The line of this file that carries the comment `marker`."""
    lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    (number,) = [k + 1 for k, text in enumerate(lines) if "#" in text and text.rstrip().endswith(marker)]
    return number


def _refused(rule, marker, message):
    """Splicing `rule` into the L kernel is refused, naming this file, the line of `marker` and `message`."""
    with pytest.raises(SpliceError, match=message) as info:
        _splice._source(_lsim._kernel_template, rule, {"touch": prefetch_list})
    assert f"{__file__}:{_line(marker)}:" in str(info.value)
    return str(info.value)


@njit
def _reads_module_constant(params, i, state, offset, degree, neighbors):
    deg = degree[_ix(i)]
    best = neighbors[_ix(offset[_ix(i)])]
    for c in range(min(deg, cap)):  # mistake: cap
        j = neighbors[_ix(offset[_ix(i)] + c)]
        if state[_ix(j)] < state[_ix(best)]:
            best = j
    return best


def test_a_module_level_name_the_template_also_binds_is_refused():
    """The template's `cap` (2^31 - 1) would silently replace the policy file's `cap = 2`."""
    _refused(_reads_module_constant, "mistake: cap", "module-level `cap`.*variable `cap` of its own")


kernel = 2  # a module-level constant named like the generated kernel function


@njit
def _reads_a_constant_named_kernel(params, i, state, offset, degree, neighbors):
    deg = degree[_ix(i)]
    best = neighbors[_ix(offset[_ix(i)])]
    for c in range(min(deg, kernel)):  # mistake: kernel
        j = neighbors[_ix(offset[_ix(i)] + c)]
        if state[_ix(j)] < state[_ix(best)]:
            best = j
    return best


def test_a_module_level_constant_named_kernel_is_refused():
    """In the generated module `kernel` is the compiled kernel: numba reported a typing error
    about a recursive dispatcher, naming neither the rule nor the constant (issue 42)."""
    _refused(_reads_a_constant_named_kernel, "mistake: kernel", "module-level `kernel`.*compiled kernel itself")


@njit
def _reuses_dispatcher_index(params, rng, i, state, offset, degree, neighbors):
    base = offset[_ix(i)]
    best = neighbors[_ix(base)]
    for i in range(1, 2):  # mistake: loop counter
        if state[_ix(neighbors[_ix(base + i)])] < state[_ix(best)]:
            best = neighbors[_ix(base + i)]
    return best


def test_a_rule_reusing_a_parameter_as_loop_counter_is_refused():
    """Its `for i` would overwrite the kernel's dispatcher index."""
    _refused(_reuses_dispatcher_index, "mistake: loop counter", "assigns to its parameter `i`")


@njit
def _rebinds_degree(params, rng, i, offset, degree, neighbors):
    degree = degree[_ix(i)]  # mistake: rebinds degree
    return neighbors[_ix(offset[_ix(i)] + degree - 1)]


def test_a_rule_rebinding_a_parameter_is_refused():
    """Without the check numba fails at a line of the generated cache file ("Cannot unify array(int32, 1d, C)
    and int32"), or worse, compiles a kernel whose `degree` is no longer the graph's."""
    _refused(_rebinds_degree, "mistake: rebinds degree", "assigns to its parameter `degree`")


@njit
def _forgets_params(params, rng, i, state, offset, degree, neighbors):
    base = offset[_ix(i)]
    target = neighbors[_ix(base)]
    if state[_ix(target)] > threshold:  # noqa: F821  mistake: forgets params.
        target = neighbors[_ix(base + degree[_ix(i)] - 1)]
    return target


def test_a_rule_reading_an_undefined_name_is_refused_with_a_hint_at_params():
    _refused(_forgets_params, "mistake: forgets params.", r"`threshold`, which is not defined.*`params\.threshold`")


def _closure_rule():
    limit = 3

    @njit
    def rule(i, state, offset, neighbors):
        j = neighbors[_ix(offset[_ix(i)])]
        if state[_ix(j)] > limit:  # mistake: closure
            j = neighbors[_ix(offset[_ix(i)] + 1)]
        return j

    return rule


def test_a_rule_reading_a_closure_variable_is_refused():
    """Once read as a builtin (and then a NameError in the generated file), now refused."""
    _refused(_closure_rule(), "mistake: closure", "`limit`, a variable of the function that encloses it")


@njit
def _unknown_parameter(params, rng, j, state):  # mistake: parameter the template does not pass
    return j


def test_a_rule_taking_a_name_the_template_does_not_pass_is_refused():
    _refused(_unknown_parameter, "mistake: parameter the template does not pass", "takes `j`, which the kernel "
             "template does not pass")


@njit
def _reads_without_taking(params, rng, i, offset, neighbors):
    j = neighbors[_ix(offset[_ix(i)])]
    if state[_ix(j)] > 0:  # noqa: F821  mistake: state not taken
        j = neighbors[_ix(offset[_ix(i)] + 1)]
    return j


def test_a_rule_reading_a_template_argument_it_does_not_take_is_refused():
    """It would work in the kernel but not as a function (tests call rules directly)."""
    _refused(_reads_without_taking, "mistake: state not taken", "reads `state` without taking it")


@njit
def _reads_template_local(params, rng, i, offset, neighbors):
    return neighbors[_ix(offset[_ix(i)] + events % 2)]  # noqa: F821  mistake: template local


def test_a_rule_reading_a_template_local_it_does_not_define_is_refused():
    """In the kernel `events` would silently be the template's event counter."""
    _refused(_reads_template_local, "mistake: template local", "`events`, which is not defined where the rule is")


@njit
def _assigns_own_parameter_same_name(a, b):
    b = b + 1  # mistake: assigns b
    return a[0] + b


def test_the_dispatch_rule_may_not_assign_its_parameters_even_named_as_the_template():
    """The check once fired only when the rule named its parameters differently."""
    with pytest.raises(SpliceError, match="assigns to its parameter `b`") as info:
        _splice.specialise(_template, _assigns_own_parameter_same_name)
    assert f"{__file__}:{_line('mistake: assigns b')}:" in str(info.value)


@njit(cache=True)
def _b_then_a(b, a):
    return a[1] * b


@njit(cache=True)
def _b_only(b):
    for a in range(2):  # `a` is a local here (renamed), not the template's `a`
        b2 = b + a
    return b2 * 10


def test_a_rule_takes_the_names_it_uses_in_any_order_bound_by_name():
    out = np.zeros(3)
    arr = np.array([1.0, 5.0, 7.0])
    assert _splice.specialise(_template, _b_then_a)(arr, 2, out) == 3 * 10.0
    np.testing.assert_array_equal(out, [10.0, 10.0, 10.0])
    assert _splice.specialise(_template, _b_only)(arr, 2, out) == 3 * 30
    np.testing.assert_array_equal(out, [30.0, 30.0, 30.0])


uniform = 0.5  # named like the generator function the L template imports from qtheory._rng


@njit
def _reads_a_name_the_template_imports(i, offset, neighbors):
    return neighbors[_ix(offset[_ix(i)] + int(uniform))]  # mistake: template import


def test_a_module_level_name_the_template_imports_as_something_else_is_refused():
    _refused(_reads_a_name_the_template_imports, "mistake: template import",
             "`uniform`, which means something else in the kernel template")


def test_every_registered_locality_policy_splices_into_the_kernel():
    from qtheory.locality.policies import REGISTRY as L_REGISTRY, rule_of as l_rule_of

    for name, cls in L_REGISTRY.items():
        text = _splice._source(_lsim._kernel_template, l_rule_of(cls), {"touch": cls.lookahead or prefetch_list})
        assert "decide(" not in text and "touch(" not in text, name


@njit
def _stores_into_state(params, i, state, offset, neighbors):
    best = neighbors[_ix(offset[_ix(i)])]
    state[_ix(best)] += 0  # mistake: stores into state
    return best


@njit
def _writes_its_params(params, i, offset, neighbors):
    best = neighbors[_ix(offset[_ix(i)])]
    params.memory[0] = best   # its own state: allowed
    return best


def _draws_from_numpy(params, i, offset, degree, neighbors):
    k = np.random.randint(degree[_ix(i)])  # mistake: np.random
    return neighbors[_ix(offset[_ix(i)] + k)]


def test_a_rule_storing_into_a_kernel_array_is_refused_and_into_its_own_params_is_not():
    """L's `state` holds the queue lengths in a width the kernel chooses and may rerun: a store there changes
    the run behind the kernel's back (issue 42)."""
    _refused(_stores_into_state, "mistake: stores into state", "stores into `state`, which the kernel owns")
    text = _splice._source(_lsim._kernel_template, _writes_its_params, {"touch": prefetch_list})   # not refused
    assert "params.memory[0] =" in text


def test_a_rule_drawing_from_numpys_global_generator_is_refused():
    """np.random's stream is not the run's seed: the same seed gave other numbers in another process."""
    _refused(_draws_from_numpy, "mistake: np.random", r"draws from `np\.random`.*generator `rng`")


def _plain_helper(x):
    return x + 1


@njit
def _calls_a_plain_helper(params, i, state, offset, degree, neighbors):
    j = neighbors[_ix(offset[_ix(i)])]
    k = _plain_helper(j)  # mistake: plain helper
    return k - 1


def test_a_rule_calling_a_plain_python_function_is_refused():
    """numba's own error pointed at the generated kernel in the cache, not at the rule (issue 42)."""
    _refused(_calls_a_plain_helper, "mistake: plain helper", "calls `_plain_helper`, a plain Python function")


@njit
def _does_not_type(params, i, state, offset, degree, neighbors):
    j = neighbors[_ix(offset[_ix(i)])]
    k = j + "one"  # mistake: does not type
    return k


def test_a_rule_that_does_not_compile_is_named_with_its_file_and_line(monkeypatch, tmp_path):
    """A typing error inside the spliced rule: numba cites the generated module; the error the
    reader gets names the rule's own file and the line of the mistake."""
    import numpy as np

    from qtheory.errors import SpliceError
    from qtheory.locality.graphs import irg
    from qtheory.locality.model import paper_system
    from qtheory.locality.policies import Policy

    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path))   # a fresh kernel: compiled (and failing) now

    class DoesNotType(Policy):  # no `name`: not registered
        rule = _does_not_type

        def kernel_params(self, system, graph):
            return ()

    system = paper_system("design", d=2)
    with pytest.raises(SpliceError) as info:
        _lsim.simulate(system, irg(system, 20, seed=1), DoesNotType(), initial_state=np.zeros(20, np.int64), t_grid=[0.0, 1.0], seed=1)
    message = str(info.value)
    assert message.startswith(f"{__file__}:{_line('mistake: does not type')}:"), message[:300]
    assert "spliced from" in message and "does not compile" in message
