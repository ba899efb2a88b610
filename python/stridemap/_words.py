"""The library's messages in this binding's words.

The library names its own things (struct fields such as
``sm_solver_options.rtol``); a Python caller knows keyword arguments.  One
table says which keyword each library name is, as the stridemap program's
args.c does for its flags.
"""
import re

_PHRASES = [
    ("sm_solver_options.method = SM_METHOD_BDF", "method='bdf'"),
    ("another starting guess x0", "another guess"),
    ("(see sm_registry_count and sm_registry_at)", "(see stridemap.models())"),
    ("(see sm_model.params)", "(see stridemap.params(model))"),
    ("(then open it with resume = true", "(then resume=True"),
    ("open it with resume = true", "pass resume=True"),
    ("a sweep needs at least one axis in sm_sweep_config.grid", "a sweep needs at least one axis in grid"),
    ("sm_cont_options.h0", "step"),
    ("sm_cont_options.max_iter", "corrector_iter"),
    ("sm_sweep_axis", "grid"),
]
_PARAMS_OF = re.compile(r"\(see the parameters of model ([^)]*)\)")
_FIELD = re.compile(r"\bsm_(?:solver|newton|cont|orbit|search)_options\.(\w+)|\bsm_sweep_config\.(\w+)")


def words(text):
    """text with library names turned into keyword arguments."""
    if not text:
        return text
    for lib, py in _PHRASES:
        text = text.replace(lib, py)
    text = _PARAMS_OF.sub(lambda m: f"(see stridemap.params('{m.group(1)}'))", text)
    return _FIELD.sub(lambda m: m.group(1) or m.group(2), text)
