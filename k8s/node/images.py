#!/usr/bin/env python3
"""Container images without a container engine.

No public registry is reachable from this machine, so every image the single-node cluster runs that
is not a service (those are Jib's) is built here as a one-layer docker-archive tar (the `docker save`
format, which jib's `tar://` base image reads) from files on this machine, and pushed to the node's
registry, from which the node's containerd pulls it:

  images.py build --tag NAME:TAG --out FILE.tar [--entrypoint JSON] [--cmd JSON] [--env K=V]...
                  [--user UID:GID] [--workdir DIR] [--libs] SRC=DEST...
  images.py push [--insecure] FILE.tar...

push sends each tar's image to the registry its tag names (REGISTRY/REPOSITORY:TAG) over the
registry API (OCI image manifest, uncompressed layers); --insecure speaks plain HTTP.

SRC is a file or a directory (copied whole) placed at DEST in the image. With --libs the shared
libraries of every ELF file in the image (as `ldd` resolves them on this machine) are added at their
own paths, so a dynamically linked program runs in the image as it does here. Every image also gets
/etc/passwd and /etc/group (root, the services' user 10001, nonroot 65532 and Strimzi's 1001) and a /tmp.
The layer is deterministic (fixed mtimes, owners and order), so the same inputs give the same
image ID and a re-push is a no-op.
"""

import argparse
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request

PASSWD = (
    "root:x:0:0:root:/root:/sbin/nologin\napp:x:10001:10001:app:/tmp:/sbin/nologin\n"
    "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
    "strimzi:x:1001:0:strimzi:/tmp:/sbin/nologin\n"
)
GROUP = "root:x:0:\napp:x:10001:\nnonroot:x:65532:\n"
ELF_MAGIC = b"\x7fELF"


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False


def shared_libs(path):
    """Absolute paths of the libraries `ldd` resolves for an ELF file (none for a static one)."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"=>\s+(/\S+)", line) or re.match(r"\s*(/\S+)\s+\(0x", line)
        if m:
            libs.append(m.group(1))
    return libs


def collect(mappings):
    """(image path -> host path) for every file, plus the set of directories to create."""
    files, dirs = {}, set()
    for mapping in mappings:
        src, _, dest = mapping.partition("=")
        if not dest:
            raise SystemExit(f"images.py: {mapping!r} is not SRC=DEST")
        dest = "/" + dest.strip("/")
        if os.path.isdir(src):
            for base, _subdirs, names in os.walk(src):
                rel = os.path.relpath(base, src)
                target = dest if rel == "." else f"{dest}/{rel}"
                dirs.add(target)
                for n in names:
                    files[f"{target}/{n}"] = os.path.join(base, n)
        elif os.path.exists(src):
            files[dest] = src
        else:
            raise SystemExit(f"images.py: {src} does not exist")
    return files, dirs


def add_libs(files):
    shipped = {os.path.realpath(h) for h in files.values()}
    for host in [h for h in files.values() if not os.path.islink(h) and is_elf(h)]:
        for lib in shared_libs(host):
            real = os.path.realpath(lib)
            if real in shipped:  # found through the program's own rpath, already in the image
                continue
            files.setdefault(lib, real)
            files.setdefault(real, real)


def parents(path):
    parts = path.strip("/").split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def layer_bytes(files, dirs):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        all_dirs = {"tmp", "etc"}
        for p in list(files) + [d.strip("/") + "/x" for d in dirs]:
            all_dirs.update(parents(p))
        for d in sorted(all_dirs):
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o1777 if d == "tmp" else 0o755, 0
            tar.addfile(info)
        extra = {"etc/passwd": PASSWD.encode(), "etc/group": GROUP.encode()}
        for name, data in sorted(extra.items()):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
        for dest in sorted(files):
            name, host = dest.strip("/"), files[dest]
            if name in extra:
                continue
            st = os.stat(host)
            info = tarfile.TarInfo(name)
            info.size, info.mtime = st.st_size, 0
            info.mode = 0o755 if st.st_mode & 0o111 else 0o644
            with open(host, "rb") as f:
                tar.addfile(info, f)
    return buf.getvalue()


def build(args):
    files, dirs = collect(args.paths)
    if args.libs:
        add_libs(files)
    layer = layer_bytes(files, dirs)
    diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
    env = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
    for e in args.env:
        key = e.split("=", 1)[0]
        env = [x for x in env if not x.startswith(key + "=")] + [e]
    config = {
        "architecture": "amd64",
        "os": "linux",
        "created": "1970-01-01T00:00:00Z",
        "config": {
            k: v
            for k, v in {
                "Env": env,
                "Entrypoint": json.loads(args.entrypoint) if args.entrypoint else None,
                "Cmd": json.loads(args.cmd) if args.cmd else None,
                "User": args.user,
                "WorkingDir": args.workdir,
            }.items()
            if v
        },
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "k8s/node/images.py"}],
    }
    config_bytes = json.dumps(config, sort_keys=True).encode()
    config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
    layer_name = diff_id.split(":")[1] + "/layer.tar"
    manifest = [{"Config": config_name, "RepoTags": [args.tag], "Layers": [layer_name]}]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with (
        tempfile.NamedTemporaryFile(dir=os.path.dirname(os.path.abspath(args.out)), delete=False) as tmp,
        tarfile.open(fileobj=tmp, mode="w") as out,
    ):
        for name, data in (
            (config_name, config_bytes),
            (layer_name, layer),
            ("manifest.json", json.dumps(manifest).encode()),
        ):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 0
            out.addfile(info, io.BytesIO(data))
    os.replace(tmp.name, args.out)
    print(f"{args.tag} {config_name[:12]} {len(layer) // 1024} KiB -> {args.out}", file=sys.stderr)


MEDIA = {
    "manifest": "application/vnd.oci.image.manifest.v1+json",
    "config": "application/vnd.oci.image.config.v1+json",
    "layer": "application/vnd.oci.image.layer.v1.tar",
}


def registry_call(method, url, data=None, headers=None):
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=300) as resp:
            return resp.status, resp.headers
    except urllib.error.HTTPError as e:
        if method == "HEAD" and e.code == 404:
            return 404, e.headers
        raise SystemExit(f"images.py: {method} {url}: {e.code} {e.read()[:500]!r}") from e


def push_blob(base, repo, data):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if registry_call("HEAD", f"{base}/v2/{repo}/blobs/{digest}")[0] == 200:
        return digest
    _, headers = registry_call("POST", f"{base}/v2/{repo}/blobs/uploads/", b"")
    location = urllib.parse.urljoin(f"{base}/", headers["Location"])
    sep = "&" if "?" in location else "?"
    registry_call(
        "PUT", f"{location}{sep}digest={urllib.parse.quote(digest)}", data, {"Content-Type": "application/octet-stream"}
    )
    return digest


def push(args):
    for path in args.tars:
        with tarfile.open(path) as tar:
            (entry,) = json.load(tar.extractfile("manifest.json"))
            (tag,) = entry["RepoTags"]
            registry, _, ref = tag.partition("/")
            repo, _, version = ref.rpartition(":")
            base = f"{'http' if args.insecure else 'https'}://{registry}"
            config = tar.extractfile(entry["Config"]).read()
            layers = []
            for name in entry["Layers"]:
                data = tar.extractfile(name).read()
                layers.append({"mediaType": MEDIA["layer"], "size": len(data), "digest": push_blob(base, repo, data)})
        manifest = {
            "schemaVersion": 2,
            "mediaType": MEDIA["manifest"],
            "config": {"mediaType": MEDIA["config"], "size": len(config), "digest": push_blob(base, repo, config)},
            "layers": layers,
        }
        body = json.dumps(manifest).encode()
        registry_call("PUT", f"{base}/v2/{repo}/manifests/{version}", body, {"Content-Type": MEDIA["manifest"]})
        print(f"{tag} sha256:{hashlib.sha256(body).hexdigest()[:12]} pushed", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build")
    b.add_argument("--tag", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--entrypoint")
    b.add_argument("--cmd")
    b.add_argument("--env", action="append", default=[])
    b.add_argument("--user")
    b.add_argument("--workdir")
    b.add_argument("--libs", action="store_true")
    b.add_argument("paths", nargs="*")
    u = sub.add_parser("push")
    u.add_argument("--insecure", action="store_true")
    u.add_argument("tars", nargs="+")
    args = p.parse_args()
    build(args) if args.action == "build" else push(args)


if __name__ == "__main__":
    main()
