# The driver of Lucid's `python` tool: reads one JSON request a line on stdin
# ({"id", "code", "cpu", "cap"}), runs the code in one namespace kept between requests, and
# answers one JSON line, carrying the request's id, on the stdout it was started with. The
# code's own output (print, os.write, child processes) goes to temporary files through fds
# 1 and 2, never into the protocol; what the code writes into the protocol on purpose
# lacks the id of any later request, and each answer starts on a line of its own.
import ast, json, os, resource, sys, tempfile, traceback

proto = os.fdopen(os.dup(1), "w", buffering=1)
requests = os.fdopen(os.dup(0), "r")
saved_out, saved_err = os.dup(1), os.dup(2)
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
names = {"__name__": "__main__", "__builtins__": __builtins__}


def walk():
    seen = {}
    for top, dirs, files in os.walk("."):
        for f in files:
            p = os.path.join(top, f)[2:]
            try:
                st = os.stat(p)
            except OSError:
                continue
            seen[p] = (st.st_mtime_ns, st.st_size)
            if len(seen) >= 2000:
                return seen
    return seen


def read_capped(f, cap):
    f.flush()
    size = os.fstat(f.fileno()).st_size
    f.seek(0)
    data = f.read(cap)
    return data.decode("utf-8", "replace"), max(size - len(data), 0)


def run(code):
    tree = ast.parse(code, "<cell>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<cell>", "exec"), names)
    if last is not None:
        value = eval(compile(last, "<cell>", "eval"), names)
        if value is not None:
            return repr(value)
    return None


proto.write(json.dumps({"ready": sys.version.split()[0]}) + "\n")
for line in requests:
    req = json.loads(line)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime) + 1
    want = spent + req["cpu"]
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
    before = walk()
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    value, error = None, None
    try:
        value = run(req["code"])
    except BaseException as e:
        if isinstance(e, SystemExit) and not e.code:
            pass
        else:
            tb = e.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename != "<cell>":
                tb = tb.tb_next
            error = "".join(traceback.format_exception(type(e), e, tb))
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os.dup2(saved_out, 1)
        os.dup2(saved_err, 2)
    cap = req["cap"]
    stdout, stdout_cut = read_capped(out, cap)
    stderr, stderr_cut = read_capped(err, cap)
    out.close()
    err.close()
    if value is not None and len(value) > cap:
        value = value[:cap] + "… [%d more characters]" % (len(value) - cap)
    after = walk()
    files = sorted(p for p, s in after.items() if before.get(p) != s)
    proto.write("\n" + json.dumps({
        "id": req["id"], "stdout": stdout, "stdout_cut": stdout_cut, "stderr": stderr, "stderr_cut": stderr_cut,
        "value": value, "error": error, "files": files,
    }) + "\n")
