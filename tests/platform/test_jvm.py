"""The JVM flags a service pod really runs with, on the real JDK: the image's entrypoint as jib
builds it (services/pom.xml: `java <jvmFlags> -cp @/app/jib-classpath-file <main>`), the container
the chart renders (command, args, env), and `java -XX:+PrintFlagsFinal` to read what wins.

jib's jvmFlags sit on the java command line. JAVA_TOOL_OPTIONS (JNI_CreateJavaVM) and
JDK_JAVA_OPTIONS (the launcher) are both read before it, so neither can override them; the chart
therefore starts java itself (templates/lib, coupon-lib.javaCommand)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kube import ROOT, helm, load_yaml_all, run

JAVA = Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")) / "bin" / "java"
POM = ROOT / "services" / "pom.xml"
MAVEN = {"m": "http://maven.apache.org/POM/4.0.0"}
JIB_FILES = ("@/app/jib-classpath-file", "@/app/jib-main-class-file")


def jib_jvm_flags() -> list[str]:
    for plugin in ET.parse(POM).iter(f"{{{MAVEN['m']}}}plugin"):
        if plugin.findtext("m:artifactId", namespaces=MAVEN) == "jib-maven-plugin":
            return [f.text for f in plugin.findall(".//m:jvmFlags/m:jvmFlag", MAVEN)]
    pytest.fail("services/pom.xml configures no jib-maven-plugin")


def image_entrypoint() -> list[str]:
    """jib's default entrypoint (jib FAQ, "What would a Dockerfile for a Jib-built image look like?")."""
    return ["java", *jib_jvm_flags(), "-cp", "@/app/jib-classpath-file", "<main class>"]


def effective_flag(container: dict, flag: str) -> str:
    """The value of a -XX flag for this container: its argv (command or the image's entrypoint,
    then args) and env run on the real JDK, with the classpath and main class replaced by
    -XX:+PrintFlagsFinal -version."""
    argv = [*(container.get("command") or image_entrypoint()), *container.get("args", [])]
    assert argv[0] == "java", argv
    jvm = argv[1 : argv.index("-cp")]
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")}
    env.update({e["name"]: e["value"] for e in container.get("env", []) if "value" in e})
    out = subprocess.run(
        [str(JAVA), *jvm, "-XX:+PrintFlagsFinal", "-version"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    m = re.search(rf"^\s*\S+\s+{flag}\s+=\s+(\S+)", out, re.M)
    assert m, f"{flag} not printed"
    return m.group(1)


@pytest.fixture(scope="module")
def rendered() -> list[dict]:
    if not JAVA.exists():
        pytest.fail(f"no JDK at {JAVA} (the project's Java 25, see the house rules)")
    chart = run(
        ["bash", str(ROOT / "tests" / "chart" / "offline-chart.sh"), str(ROOT / "build" / "chart-jvm" / "coupon-event")]
    ).stdout.strip()
    out = helm(
        "template",
        "sale",
        chart,
        "--namespace",
        "sale",
        "-f",
        str(ROOT / "tests" / "chart" / "fixtures" / "offline-external.yaml"),
    ).stdout
    return load_yaml_all(out)


def containers(objs: list[dict]) -> dict[str, dict]:
    found = {}
    for o in objs:
        if o["kind"] in ("Deployment", "Job"):
            for c in o["spec"]["template"]["spec"]["containers"]:
                found[o["metadata"]["name"]] = c
    return found


def chart_heap(container: dict) -> str:
    flags = [a for a in container["command"] if a.startswith("-XX:MaxRAMPercentage=")]
    assert len(flags) == 1, container["command"]
    return flags[0].split("=", 1)[1]


def test_the_chart_heap_setting_is_what_the_jvm_uses(rendered):
    java = containers(rendered)
    assert {"sale-coupon-api", "sale-coupon-consumer", "sale-migrate", "sale-register"} <= set(java)
    for name, c in java.items():
        assert c["command"][0] == "java" and tuple(c["command"][-2:]) == JIB_FILES, name
        want = float(chart_heap(c))
        assert float(effective_flag(c, "MaxRAMPercentage")) == want, name
        assert want != float(effective_flag({}, "MaxRAMPercentage")), "chart and image agree: no proof"


def test_environment_variables_cannot_override_jib_flags():
    """The negative twin: what the chart did before (JAVA_TOOL_OPTIONS on the image's entrypoint),
    and JDK_JAVA_OPTIONS, leave jib's value in force."""
    image = re.search(r"-XX:MaxRAMPercentage=(\S+)", " ".join(jib_jvm_flags())).group(1)
    for var in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"):
        c = {"env": [{"name": var, "value": "-XX:MaxRAMPercentage=40"}]}
        assert float(effective_flag(c, "MaxRAMPercentage")) == float(image), var


def test_built_image_has_the_files_the_chart_command_reads():
    """jib writes the classpath and main-class files the chart's command names (checked on an image
    built here by k8s/node/event-images.sh, as skaffold's jib builder builds it)."""
    images = sorted((ROOT / "build" / "cluster" / "images").glob("coupon-*.tar"))
    if not images:
        pytest.skip("no jib image built here yet (make cluster-up builds them)")
    for image in images:
        try:
            checked = image_files(image)
        except (tarfile.ReadError, EOFError, KeyError) as e:
            pytest.skip(f"{image.name} is being written by an image build ({e})")
        entry, names = checked
        assert entry[0] == "java" and entry[entry.index("-cp") + 1] == JIB_FILES[0], entry
        assert {f[2:] for f in JIB_FILES} <= names, image.name


def image_files(image: Path) -> tuple[list[str], set[str]]:
    """The entrypoint and the file names of an image tar (docker save layout)."""
    with tarfile.open(image) as outer:
        manifest = json.load(outer.extractfile("manifest.json"))[0]
        entry = json.load(outer.extractfile(manifest["Config"]))["config"]["Entrypoint"]
        names = set()
        for layer in manifest["Layers"]:
            with tarfile.open(fileobj=outer.extractfile(layer)) as t:
                names |= {n.lstrip("./") for n in t.getnames()}
    return entry, names
