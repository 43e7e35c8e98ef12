#!/usr/bin/env python3
"""Edits Strimzi poms in a writable build copy so that they resolve from Maven Central alone.

  strimzi-pom.py notest TREE MODULE...   drop the test-scoped dependencies of each module's pom
  strimzi-pom.py nodoc TREE              drop the api module's documentation generator
  strimzi-pom.py only-central POM GROUP:ARTIFACT...
                                         drop the pom's <repositories> and the named dependencies

notest: a dependency goes when it says <scope>test</scope>, is a test-jar or has the tests classifier,
or when it gives no scope of its own and the root pom's dependencyManagement declares it only at test
scope. The build skips the tests (-Dmaven.test.skip=true), and some of them are not on Maven Central.
nodoc: the generator includes documentation/api/*.adoc, which the reference tree leaves out.
only-central: for the Kafka image's third-party libraries, whose pom names a repository this machine
cannot reach and libraries Maven Central does not serve here.
"""

import re
import sys
from pathlib import Path

DEP = re.compile(r"[ \t]*<dependency>.*?</dependency>[ \t]*\n?", re.S)


def tag(block, name):
    m = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", block, re.S)
    return m.group(1) if m else None


def managed_test_only(root_pom):
    managed = re.search(r"<dependencyManagement>(.*?)</dependencyManagement>", root_pom, re.S).group(1)
    scopes = {}
    for block in DEP.findall(managed):
        if tag(block, "type") is None and tag(block, "classifier") is None:
            scopes.setdefault((tag(block, "groupId"), tag(block, "artifactId")), set()).add(
                tag(block, "scope") or "compile"
            )
    return {k for k, v in scopes.items() if v == {"test"}}


def drop_dependencies(pom: Path, unwanted) -> int:
    """Drops the project's own dependencies (the first <dependencies> block) for which unwanted(block)."""
    head, sep, rest = pom.read_text().partition("<dependencies>")
    body, sep2, tail = rest.partition("</dependencies>")
    kept = DEP.sub(lambda m: "" if unwanted(m.group(0)) else m.group(0), body)
    pom.write_text(head + sep + kept + sep2 + tail)
    return len(DEP.findall(body)) - len(DEP.findall(kept))


def notest(tree: Path, modules):
    test_only = managed_test_only((tree / "pom.xml").read_text())

    def is_test(block):
        if tag(block, "scope") == "test" or tag(block, "type") == "test-jar" or tag(block, "classifier") == "tests":
            return True
        return tag(block, "scope") is None and (tag(block, "groupId"), tag(block, "artifactId")) in test_only

    for module in modules:
        n = drop_dependencies(tree / module / "pom.xml", is_test)
        print(f"{module}: dropped {n} test dependencies", file=sys.stderr)


def nodoc(tree: Path):
    pom = tree / "api" / "pom.xml"
    text, n = re.subn(
        r"[ \t]*<execution>\s*<id>generate-doc</id>.*?</execution>[ \t]*\n?", "", pom.read_text(), flags=re.S
    )
    if n != 1:
        raise SystemExit(f"{pom}: no generate-doc execution")
    pom.write_text(text)


def only_central(pom: Path, names):
    pom.write_text(re.sub(r"\s*<repositories>.*?</repositories>", "", pom.read_text(), flags=re.S))
    drop = {tuple(n.split(":", 1)) for n in names}
    n = drop_dependencies(pom, lambda b: (tag(b, "groupId"), tag(b, "artifactId")) in drop)
    print(f"{pom}: dropped {n} dependencies not served here", file=sys.stderr)


def main():
    cmd, path, *rest = sys.argv[1:]
    if cmd == "notest":
        notest(Path(path), rest)
    elif cmd == "nodoc":
        nodoc(Path(path))
    elif cmd == "only-central":
        only_central(Path(path), rest)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
