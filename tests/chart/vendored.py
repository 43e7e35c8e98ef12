#!/usr/bin/env python3
"""The service charts vendor their file:// dependencies (coupon-lib) as charts/<name>-<version>.tgz,
so each renders alone. Checks that every such archive holds exactly the files of its source folder
(Chart.yaml compared as data: helm re-serializes it when it packages).
Usage: vendored.py CHART_DIR...   (refresh the archives with `make chart-deps`)"""
import sys
import tarfile
from pathlib import Path

import yaml


def problems(chart: Path) -> list[str]:
    out = []
    for dep in (yaml.safe_load((chart / "Chart.yaml").read_text()) or {}).get("dependencies") or []:
        repo = dep.get("repository", "")
        if not repo.startswith("file://"):
            continue
        source = (chart / repo[len("file://"):]).resolve()
        archive = chart / "charts" / f"{dep['name']}-{dep['version']}.tgz"
        if not archive.exists():
            out.append(f"{archive} missing")
            continue
        with tarfile.open(archive) as tar:
            packed = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        here = {str(p.relative_to(source)): p.read_bytes() for p in source.rglob("*") if p.is_file()}
        for name in sorted(set(packed) | set(here)):
            if name not in here:
                out.append(f"{archive.name}: {name} is not in {source.name}/")
            elif name not in packed:
                out.append(f"{archive.name}: {source.name}/{name} is missing")
            elif name == "Chart.yaml":
                if yaml.safe_load(packed[name]) != yaml.safe_load(here[name]):
                    out.append(f"{archive.name}: Chart.yaml differs")
            elif packed[name] != here[name]:
                out.append(f"{archive.name}: {name} differs from {source.name}/{name}")
    return out


def main() -> int:
    failed = 0
    for chart in map(Path, sys.argv[1:]):
        found = problems(chart)
        failed += bool(found)
        if found:
            print(f"FAIL {chart.name} vendors a stale library (make chart-deps):")
            print("\n".join(f"    {p}" for p in found))
        else:
            print(f"ok   {chart.name} vendors its library as it is in charts/")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
