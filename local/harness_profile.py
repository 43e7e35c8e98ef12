"""The harness's profile (local/profiles/NAME.env): the settings in which a harness run differs from
a pod of the chart, one a line, each marked `chart` (argued for production, the chart ships it too)
or `harness` (an accommodation of the harness), with its reason. `include NAME` takes another
profile's lines first; a later line of the same name replaces an earlier one.

  python3 local/harness_profile.py env NAME    `export NAME=value` lines for the shell, for the settings
                                       the environment does not already set
  python3 local/harness_profile.py json NAME   the settings in force (the environment's value where it
                                       sets one) as JSON: what the demo's and the bench's summaries,
                                       and the fault suite's report, carry as `profile`
  python3 local/harness_profile.py show NAME   the same as text, one setting a line
Pure functions below; the environment is an argument."""

import json
import os
import shlex
import sys

PROFILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiles")
KINDS = ("chart", "harness")


class ProfileError(ValueError):
    pass


def parse(text, name="profile", load=None):
    """[{name, value, kind, reason}] of a profile's text, in order, later lines replacing earlier
    ones of the same name. load(NAME) gives the text of an included profile."""
    settings = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("include "):
            if load is None:
                raise ProfileError(f"{name}:{number}: include without a loader")
            other = line.split(None, 1)[1].strip()
            for s in parse(load(other), other, load):
                settings[s["name"]] = s
            continue
        assignment, sep, comment = line.partition("  # ")
        key, eq, value = assignment.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key.isidentifier() or key.upper() != key:
            raise ProfileError(f"{name}:{number}: not NAME=value: {raw!r}")
        kind, colon, reason = comment.partition(":")
        kind, reason = kind.strip(), reason.strip()
        if not sep or not colon or kind not in KINDS or not reason:
            raise ProfileError(f"{name}:{number}: {key} needs '  # chart: reason' or '  # harness: reason'")
        settings[key] = {"name": key, "value": value, "kind": kind, "reason": reason}
    return list(settings.values())


def load(name, directory=PROFILES):
    path = os.path.join(directory, f"{name}.env")
    if not os.path.isfile(path):
        known = sorted(f[:-4] for f in os.listdir(directory) if f.endswith(".env"))
        raise ProfileError(f"no profile {name!r} (local/profiles/: {', '.join(known)})")
    with open(path) as f:
        return f.read()


def read(name, directory=PROFILES):
    return parse(load(name, directory), name, lambda other: load(other, directory))


def in_force(name, settings, environ):
    """The profile as a run used it: every setting with the value in force, `overridden` where the
    environment set its own."""
    out = []
    for s in settings:
        value = environ.get(s["name"])
        overridden = value is not None and value != s["value"]
        out.append(
            {
                **s,
                "value": value if value is not None else s["value"],
                "overridden": overridden,
                **({"profile_value": s["value"]} if overridden else {}),
            }
        )
    return {
        "name": name,
        "file": f"local/profiles/{name}.env",
        # the services run as the chart ships them: the product profile, nothing overridden
        "chart_configuration": name == "product" and not any(s["overridden"] for s in out),
        "harness_accommodations": sum(1 for s in out if s["kind"] == "harness"),
        "overridden": [s["name"] for s in out if s["overridden"]],
        "settings": out,
    }


def exports(settings, environ):
    """Shell lines exporting the settings the environment does not set."""
    return "".join(f"export {s['name']}={shlex.quote(s['value'])}\n" for s in settings if s["name"] not in environ)


def describe(profile):
    """The profile in force as text: its name, then one setting a line."""
    chart = len(profile["settings"]) - profile["harness_accommodations"]
    what = "the chart's configuration; " if profile["chart_configuration"] else ""
    lines = [
        f"  profile {profile['name']} ({profile['file']}): {what}{chart} settings as the chart ships them, "
        f"{profile['harness_accommodations']} harness accommodations"
        + (f", overridden here: {', '.join(profile['overridden'])}" if profile["overridden"] else "")
    ]
    for s in profile["settings"]:
        mark = " (overridden)" if s["overridden"] else ""
        lines.append(f"    {s['kind']:7s} {s['name']}={s['value']}{mark}")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 3 or argv[1] not in ("env", "json", "show"):
        sys.stderr.write(__doc__)
        return 2
    try:
        settings = read(argv[2])
    except ProfileError as e:
        sys.stderr.write(f"local/harness_profile.py: {e}\n")
        return 1
    if argv[1] == "env":
        sys.stdout.write(exports(settings, os.environ))
    elif argv[1] == "json":
        json.dump(in_force(argv[2], settings, os.environ), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(describe(in_force(argv[2], settings, os.environ)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
