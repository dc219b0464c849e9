"""schedlab: a discrete-event GPU cluster scheduling simulator, from Python.

    import schedlab
    trace = schedlab.read_trace("traces/philly-6214e9.csv")
    result = schedlab.run(trace, "32x8:V100", "easy-backfill", seed=1)
    result.summary["wait_s"]["mean"], result.jobs["waiting_time"]

Policies may be written in Python: a class with the hooks of a C++ policy (on_begin, on_submit,
on_finish, on_requeue, schedule(ctx, decisions)); pass the class as `policy`. The whole API is in
docs/python.md.
"""

import math as _math
import os as _os
import sys as _sys

# The schedlab executable supplies its own core (schedlab._schedlab) before it imports the
# package, for its Python policies, which need no numpy.
_EMBEDDED = "schedlab._schedlab" in _sys.modules


def _core_mismatch():
    """The one-line reason the core cannot load in this Python when it was built for another
    (its file's ABI tag differs from every extension suffix of this Python), else None."""
    import importlib.machinery
    here = _os.path.dirname(_os.path.abspath(__file__))
    built = sorted(name for name in _os.listdir(here) if name.startswith("_schedlab.")
                   and name.endswith((".so", ".pyd")))
    if not built or any(name.removeprefix("_schedlab") in importlib.machinery.EXTENSION_SUFFIXES
                        for name in built):
        return None
    versions = []
    for name in built:  # _schedlab.cpython-311-x86_64-linux-gnu.so: Python 3.11
        tag = name.split(".")[1].split("-")
        version = tag[1] if tag[0] == "cpython" and len(tag) > 1 and tag[1].isdigit() else ""
        versions.append(f"Python {version[0]}.{version[1:]}" if version else ".".join(tag))
    this = f"Python {_sys.version_info[0]}.{_sys.version_info[1]}"
    return (f"schedlab was built for {' and '.join(versions)} ({', '.join(built)} in {here}); "
            f"this is {this} ({_sys.executable}): run it with that Python, or rebuild schedlab "
            "for this one (cmake -DPython3_EXECUTABLE=...)")


# The core is loaded with its symbols global, so that C++ plug-ins (load_plugin) resolve
# schedlab's symbols against it, as they do against the schedlab executable.
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _schedlab as _core
except ImportError as _error:
    _reason = _core_mismatch()
    if _reason is None:
        raise
    raise ImportError(_reason, name=__name__) from None
finally:
    _sys.setdlopenflags(_flags)

if not _EMBEDDED:
    import importlib.util as _importlib_util

    if _importlib_util.find_spec("numpy") is None:
        raise ImportError(f"schedlab needs numpy, which this Python ({_sys.executable}) cannot "
                          "import: pip install numpy", name=__name__)
    # The library's log lines (e.g. "detected format 'swf'") print nowhere unless asked for:
    # set_log_level("info") or SCHEDLAB_LOG=info in the environment.
    _core.set_log_level(_os.environ.get("SCHEDLAB_LOG", "off"))


def set_log_level(level):
    """Shows the library's log lines (spdlog, on stdout) at `level` and above: "trace", "debug",
    "info", "warn", "error", "critical", or "off" (the default; SCHEDLAB_LOG sets it at import).
    Not available to the schedlab executable's Python policies (its own -v/-q decide)."""
    if _EMBEDDED:
        raise RuntimeError("set_log_level: the schedlab executable's -v/-q decide its log lines")
    _core.set_log_level(str(level))

__version__ = _core.__version__

PolicyError = _core.PolicyError
StuckError = _core.StuckError
OutputError = _core.OutputError
InvariantError = _core.InvariantError
Job = _core.Job
Context = _core.Context
Decisions = _core.Decisions

__all__ = [
    "InputError", "PolicyError", "StuckError", "OutputError", "InvariantError", "Trace",
    "read_trace", "run", "Result", "Columns", "compare", "Comparison", "policies", "check_policy",
    "ContractReport", "load_plugin", "Policy", "Job", "Context", "Decisions", "set_log_level",
]


class InputError(ValueError):
    """Bad input (trace, cluster, option, parameter): the one-line message of the command line,
    and what it names: `file`, `line`, `field` and `value` (None when the message has none)."""

    def __init__(self, message, file=None, line=None, field=None, value=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.value = value


_PATTERNS = {}


def _patterns():
    """The message patterns _input_error reads (compiled on first use: importing `re` costs a
    policy run's start-up 6 ms)."""
    if not _PATTERNS:
        import re
        _PATTERNS.update(
            location=re.compile(r"^(?P<file>[^:\n]+?):(?P<line>\d+): "),
            column=re.compile(r"column '(?P<field>[^']*)'"),
            got=re.compile(r"got '(?P<value>[^']*)'|got (?P<bare>[^ ,;)]+)"),
            flag=re.compile(r"^(?P<flag>--[a-z-]+)( '(?P<quoted>[^']*)'| (?P<bare>[^ :]+))?:"),
            key=re.compile(r"^(?P<field>[a-z_]+)(=(?P<value>[^:]*))?: "),
            json_path=re.compile(r"^(?P<file>[^:\n]+?): (?P<field>[A-Za-z_][\w.\[\]]*): "),
            quoted_flag=re.compile(r"--[a-z-]+ '(?P<value>[^']*)'"))
    return _PATTERNS


def _input_error(message):
    """The InputError of a one-line message (used by the C++ core)."""
    p = _patterns()
    file = line = field = value = None
    m = p["location"].match(message)
    if m:
        file, line = m.group("file"), int(m.group("line"))
        c = p["column"].search(message)
        field = c.group("field") if c else None
    elif p["flag"].match(message):
        m = p["flag"].match(message)
        field = m.group("flag")
        value = m.group("quoted") if m.group("quoted") is not None else m.group("bare")
    elif p["key"].match(message):
        m = p["key"].match(message)
        field, value = m.group("field"), m.group("value")
    elif p["json_path"].match(message):
        m = p["json_path"].match(message)
        file, field = m.group("file"), m.group("field")
    if value is None and field is not None and not field.startswith("--"):
        q = p["quoted_flag"].search(message)  # "key: --flag 'value': ..."
        value = q.group("value") if q else None
    if value is None:
        g = p["got"].search(message)
        if g:
            value = g.group("value") if g.group("value") is not None else g.group("bare")
    return InputError(message, file, line, field, value)


# Output columns that hold text whatever their values look like.
_TEXT_COLUMNS = {
    "id", "job_id", "user", "tenant", "gpu_type", "status", "final_state", "end_reason", "cohort",
    "allocated_resources", "nodes", "comm", "speeds", "policy", "params", "label",
}


class Columns(dict):
    """Named columns of equal length (numpy arrays): a CSV output, or a trace's jobs."""

    def to_pandas(self):
        import pandas
        return pandas.DataFrame(dict(self))

    def __len__(self):
        # Rows, not columns: len(result.jobs) is the number of jobs.
        for column in self.values():
            return len(column)
        return 0

    def __repr__(self):
        return f"<schedlab.Columns {len(self)} rows: {', '.join(self.keys())}>"


def _columns(csv_text):
    return Columns(_core.csv_columns(csv_text, _TEXT_COLUMNS)) if csv_text else Columns()


class Trace:
    """A job trace: `len(trace)` jobs, readable as columns (`trace.columns`, in the native CSV's
    names and units: seconds) and built from columns (`Trace.from_columns`)."""

    def __init__(self, data):
        self._data = data
        self._columns = None

    @property
    def path(self):
        return self._data.path

    @property
    def format(self):
        return self._data.format

    @property
    def skipped(self):
        """Jobs the reader left out, as [(reason, count)]."""
        return list(self._data.skipped)

    def __len__(self):
        return len(self._data)

    def __repr__(self):
        return f"<schedlab.Trace {self.path!r} ({self.format}): {len(self)} jobs>"

    @property
    def columns(self):
        """The jobs as columns (numpy arrays) of the native CSV: id, submit_time, gpus, duration
        and the optional columns some job uses."""
        if self._columns is None:
            self._columns = _columns(self._data.native_csv())
        return self._columns

    jobs = columns

    def to_pandas(self):
        return self.columns.to_pandas()

    def to_csv(self, path=None):
        """The trace as native CSV text; written to `path` when given."""
        text = self._data.native_csv()
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    @classmethod
    def from_columns(cls, columns=None, *, name="<columns>", **named):
        """A trace from columns of the native CSV (docs/traces.md): id, submit_time (s), gpus,
        duration (s), and optionally walltime, priority, user, tenant, gpu_type, status,
        preemptible, checkpoint_interval, restart_overhead, comm, speeds. Values are checked as
        the native reader checks a file; errors name `name`, the CSV line (row + 2) and the
        column."""
        data = dict(columns or {})
        data.update(named)
        if not data:
            raise InputError(f"{name}: no columns", name)
        lengths = {key: len(values) for key, values in data.items()}
        if len(set(lengths.values())) != 1:
            raise InputError(f"{name}: columns of different lengths: {lengths}", name)
        rows = next(iter(lengths.values()))
        keys = list(data)
        lines = [",".join(_csv_field(str(k)) for k in keys)]
        cells = [[_cell_text(v) for v in data[k]] for k in keys]
        for r in range(rows):
            lines.append(",".join(_csv_field(cells[c][r]) for c in range(len(keys))))
        return cls(_core.trace_from_native_csv("\n".join(lines) + "\n", name))

    @classmethod
    def from_pandas(cls, frame, *, name="<DataFrame>"):
        """A trace from a DataFrame whose columns are native CSV columns (see from_columns)."""
        return cls.from_columns({str(k): frame[k].to_numpy() for k in frame.columns}, name=name)


def _cell_text(value):
    if value is None:
        return ""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "1" if value else "0"
    if isinstance(value, float) or type(value).__name__ in ("float64", "float32"):
        value = float(value)
        return "" if _math.isnan(value) else repr(value)
    return str(value)


def _csv_field(text):
    if any(ch in text for ch in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def read_trace(path, format="auto", *, filters=None, **filter_args):
    """Reads a trace file (any format of `schedlab policies`; .gz read directly). Filters as on
    the command line: `filters=["tenant=vc1", "limit=100"]`, or keywords: from_=, to=, tenant=,
    user=, status=, limit= (lists allowed for tenant, user and status)."""
    items = list(filters or [])
    for key, value in filter_args.items():
        key = "from" if key == "from_" else key
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        items.append(f"{key}={value}")
    return Trace(_core.read_trace(_os.fspath(path), format, items))


class Result:
    """One run's outputs: `summary` (a dict equal to summary.json), and `jobs`, `attempts`,
    `timeseries`, `tenants` (the CSV files as Columns). `write(dir)` writes exactly what
    `schedlab run --out dir` writes."""

    def __init__(self, output, policy):
        self._output = output
        self.policy = policy
        self._summary = None
        self._tables = {}

    @property
    def summary(self):
        if self._summary is None:
            self._summary = self._output.summary
        return self._summary

    def _table(self, name):
        if name not in self._tables:
            self._tables[name] = _columns(getattr(self._output, name + "_csv"))
        return self._tables[name]

    @property
    def jobs(self):
        return self._table("jobs")

    @property
    def attempts(self):
        return self._table("attempts")

    @property
    def timeseries(self):
        return self._table("timeseries")

    @property
    def tenants(self):
        return self._table("tenants")

    def csv(self, name):
        """The text of jobs.csv, attempts.csv, timeseries.csv or tenants.csv."""
        return getattr(self._output, name.removesuffix(".csv") + "_csv")

    @property
    def summary_json(self):
        return self._output.summary_text

    def table(self):
        """The summary table `schedlab run` prints."""
        return self._output.table()

    def write(self, directory):
        self._output.write(_os.fspath(directory))

    def __repr__(self):
        return f"<schedlab.Result {self.policy}: {len(self.jobs)} jobs>"


def _policy_name(policy):
    """The registered name of `policy` (a name, or a Python policy class, registered here)."""
    if isinstance(policy, str):
        return policy
    if isinstance(policy, type):
        name = f"py:{policy.__module__}.{policy.__qualname__}"
        _core.register_python_policy(name, policy)
        return name
    raise TypeError(
        f"policy: expected a policy name or a policy class, got {type(policy).__name__} "
        "(pass the class; its parameters go in params=)")


def _param_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _param_texts(params):
    return {str(k): _param_text(v) for k, v in (params or {}).items()}


def _trace_of(trace):
    return trace if isinstance(trace, Trace) else read_trace(trace)


def run(trace, cluster, policy="fifo", params=None, *, reproducible=False,
        isolated_baseline=False, **options):
    """Replays `trace` (a Trace or a path) on `cluster` (a spec such as "32x8:V100" or a JSON
    file) with `policy` (a registered name or a Python policy class) and its `params`. Options
    are the run options of the command line under their summary.json names: placement,
    estimate, walltime_kill, checkpoint_interval_s, restart_overhead_s, interval_s, seed,
    resample, speed_model, failures, failure_trace, node_power, pue, power_off_idle_s,
    boot_time_s, carbon, tenants. The engine runs without the GIL (a Python policy takes it per call)."""
    trace = _trace_of(trace)
    name = _policy_name(policy)
    output = _core.run(trace._data, _os.fspath(cluster), name, _param_texts(params), options,
                       reproducible, isolated_baseline, True)
    return Result(output, name)


class Comparison:
    """Runs of several policies on the same trace, cluster and options: `results` maps each
    label to its Result; `table` holds a row per policy with the metrics `schedlab compare`
    shows (summary.json keys)."""

    def __init__(self, results):
        self.results = results
        keys = _core.compared_metric_keys()
        table = {"policy": [], "params": []}
        table.update({key: [] for key in keys})
        for label, (policy, params, result) in results.items():
            table["policy"].append(policy)
            table["params"].append(";".join(f"{k}={v}" for k, v in sorted(params.items())))
            for key in keys:
                table[key].append(_summary_value(result.summary, key))
        import numpy
        self.table = Columns({k: numpy.array(v, dtype=object if k in ("policy", "params")
                                             else float) for k, v in table.items()})
        self.results = {label: result for label, (_, _, result) in results.items()}

    def to_pandas(self):
        return self.table.to_pandas()


def _summary_value(summary, key):
    value = summary
    for part in key.split("."):
        value = value[part]
    return float(value)


def compare(trace, cluster, policies, params=None, *, threads=None, **options):
    """Runs each policy of `policies` (names or Python policy classes) on the same trace,
    cluster and options, on `threads` threads at once (default: the machine's cores).
    `params` maps a policy (name or class) to its parameters."""
    if isinstance(policies, (str, type)) or not hasattr(policies, "__iter__"):
        raise InputError(f"policies: expected a list of policies, got {policies!r}",
                         field="policies", value=repr(policies))
    policies = list(policies)
    if not policies:
        raise InputError("policies: no policy to compare (the list is empty)", field="policies",
                         value="[]")
    trace = _trace_of(trace)
    params = params or {}
    contenders = []
    for policy in policies:
        name = _policy_name(policy)
        given = _param_texts(params.get(policy, params.get(name)))
        listed = ",".join(f"{k}={v}" for k, v in sorted(given.items()))
        label = f"{name}({listed})" if given else name
        if any(label == c[0] for c in contenders):
            raise InputError(f"policies: policy '{label}' is listed twice", field="policies",
                             value=label)
        contenders.append((label, name, given))
    import concurrent.futures  # here: its import costs a policy run's start-up 13 ms

    with concurrent.futures.ThreadPoolExecutor(max_workers=threads or _os.cpu_count() or 1) as pool:
        futures = [pool.submit(run, trace, cluster, name, given, **options)
                   for _, name, given in contenders]
        results = {label: (name, given, f.result())
                   for (label, name, given), f in zip(contenders, futures)}
    return Comparison(results)


def policies():
    """The registered policies (built-in, plug-in, Python) with their parameters, by name."""
    return _core.policies()


class ContractReport:
    """What check_policy found: `kept` is True when every run kept the contract."""

    def __init__(self, policy, runs, failures, text):
        self.policy = policy
        self.runs = runs
        self.failures = failures
        self.text = text

    @property
    def kept(self):
        return not self.failures

    def __bool__(self):
        return self.kept

    def __repr__(self):
        return self.text


def check_policy(policy, params=None, *, never_preempts=False):
    """The invariant checks every built-in policy passes (`schedlab check-policy`), run on
    `policy` (a name or a Python policy class): corner-case and random traces under several run
    variants, each run twice (docs/writing-policies.md)."""
    name = _policy_name(policy)
    return ContractReport(*_core.check_policy(name, _param_texts(params), never_preempts))


def load_plugin(path):
    """Loads a C++ plug-in library; returns (policies, placements) it registered."""
    return _core.load_plugin(_os.fspath(path))


class Policy:
    """An optional base class for Python policies: hooks it does not override are not called.

    Hooks (all optional but schedule): on_begin(ctx, sizes), on_submit(ctx, job),
    on_finish(ctx, job), on_requeue(ctx, job), schedule(ctx, decisions). `job` is a job index;
    ctx.job(j) is what a policy may know of it. Class attribute `uses_tenants = True` makes runs
    report tenants as with `--tenants equal`. Keyword parameters of __init__ are the policy's
    parameters (`--param key=value`, params={...})."""

    uses_tenants = False

    def on_begin(self, ctx, sizes):
        pass

    def on_submit(self, ctx, job):
        pass

    def on_finish(self, ctx, job):
        pass

    def on_requeue(self, ctx, job):
        pass

    def schedule(self, ctx, decisions):
        raise NotImplementedError


class _Hooks:
    __slots__ = ("on_begin", "on_submit", "on_finish", "on_requeue", "schedule")


def _policy_hooks(instance):
    """The hooks the engine calls on `instance`: None for missing ones and for the base class's."""
    hooks = _Hooks()
    for hook in _Hooks.__slots__:
        method = getattr(instance, hook, None)
        if method is not None and getattr(type(instance), hook, None) is getattr(Policy, hook):
            method = None
        if method is not None and not callable(method):
            raise TypeError(f"{type(instance).__name__}.{hook} is not callable")
        setattr(hooks, hook, method)
    if hooks.schedule is None:
        raise TypeError(f"{type(instance).__name__} has no schedule(ctx, decisions) method")
    return hooks


class _Param:
    __slots__ = ("name", "default")

    def __init__(self, name, default):
        self.name, self.default = name, default


def _init_params(policy_class):
    """The keyword parameters of the class's __init__ (each needs a default), in order."""
    init = policy_class.__init__
    code = getattr(init, "__code__", None)
    if code is None:  # object.__init__ or a built-in: no parameters
        return []
    names = code.co_varnames[1:code.co_argcount]
    defaults = init.__defaults__ or ()
    if len(defaults) < len(names):
        missing = names[len(names) - len(defaults) - 1]
        raise TypeError(f"{policy_class.__name__}.__init__: parameter '{missing}' needs a "
                        "default (policy parameters are optional)")
    params = [_Param(n, d) for n, d in zip(names, defaults)]
    kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    for name in kwonly:
        if name not in (init.__kwdefaults__ or {}):
            raise TypeError(f"{policy_class.__name__}.__init__: parameter '{name}' needs a "
                            "default (policy parameters are optional)")
        params.append(_Param(name, init.__kwdefaults__[name]))
    return params


def _param_kind(default):
    if isinstance(default, bool):
        return "boolean"
    if isinstance(default, int):
        return "integer"
    if isinstance(default, float):
        return "number"
    return "text" if isinstance(default, str) else ""


def _describe_policy(policy_class):
    """(summary, [(key, default text, description, kind)], uses_tenants) of a policy class.

    A parameter's kind, shown on the policy's card, is that of its default: boolean, integer,
    number or text ("" for any other default)."""
    if not isinstance(policy_class, type):
        raise TypeError(f"expected a policy class, got {policy_class!r}")
    doc = policy_class.__doc__ or ""
    first = doc.strip().split("\n\n")[0]
    summary = " ".join(line.strip() for line in first.splitlines()) or policy_class.__name__
    params = [(p.name, _param_text(p.default), f"default {p.default!r}", _param_kind(p.default))
              for p in _init_params(policy_class)]
    return summary, params, bool(getattr(policy_class, "uses_tenants", False))


def _convert_param(policy_class, key, text, default):
    try:
        if isinstance(default, bool):
            if text in ("true", "1"):
                return True
            if text in ("false", "0"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
    except ValueError:
        kind = "true or false" if isinstance(default, bool) else type(default).__name__
        raise ValueError(f"parameter {key}={text}: expected {kind}") from None
    return text


def _make_policy(policy_class, params):
    """An instance of `policy_class` with its parameters given as texts."""
    defaults = {p.name: p.default for p in _init_params(policy_class)}
    kwargs = {key: _convert_param(policy_class, key, text, defaults[key])
              for key, text in params.items()}
    return policy_class(**kwargs)


def _policy_classes(path):
    """The policy classes (classes with a schedule method) defined in the Python file `path`."""
    if not _os.path.isfile(path):
        raise FileNotFoundError(f"no such file")
    module_name = "schedlab_policies_" + "".join(
        ch if ch.isalnum() else "_" for ch in _os.path.abspath(path))
    if module_name in _sys.modules:
        module = _sys.modules[module_name]
    else:
        import importlib.util  # here: only the command line's py: policies need it

        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        _sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del _sys.modules[module_name]
            raise
    return {name: value for name, value in vars(module).items()
            if isinstance(value, type) and value.__module__ == module_name
            and callable(getattr(value, "schedule", None)) and value is not Policy}
