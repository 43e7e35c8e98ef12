#!/usr/bin/env python3
"""One host in front of the waiting room and the API, routed by path, as the ingress in front of an
event is (issue 38): the waiting-room page and /api/v1/waiting-room/... go to the room, the
issuance API (/api/v1/coupons/...) to coupon-api. The page's calls are then same-origin, as in
production, and the API needs no CORS. Local use only (tests/browser, or to try the page):

    python3 local/front.py [--port 8060+PORT_OFFSET]     # then http://127.0.0.1:8660/?coupon=ID

Standard library only; one thread per connection, the request and the answer passed through whole
(a page's calls are small).
"""

import argparse
import contextlib
import http.client
import http.server
import os
import sys

# RFC 9110 7.6.1: connection-specific fields are not forwarded
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}
API_PREFIXES = ("/api/v1/coupons/", "/api/v1/admin/coupons/")


def handler(room, api):
    class Front(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self):
            upstream = api if self.path.startswith(API_PREFIXES) else room
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
            headers["Host"] = self.headers.get("Host", "")
            headers["X-Forwarded-For"] = self.client_address[0]
            conn = http.client.HTTPConnection(*upstream, timeout=60)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                res = conn.getresponse()
                data = res.read()
            except OSError as e:
                self.send_error(502, f"upstream {upstream[0]}:{upstream[1]}: {e}")
                return
            finally:
                conn.close()
            self.send_response_only(res.status, res.reason)
            for k, v in res.getheaders():
                if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = _forward

        def log_message(self, fmt, *args):  # quiet: the services log their requests
            pass

    return Front


def main(argv=None):
    offset = int(os.environ.get("PORT_OFFSET") or 0)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=8060 + offset)
    p.add_argument("--room", default=f"127.0.0.1:{8070 + offset}")
    p.add_argument("--api", default=f"127.0.0.1:{8080 + offset}")
    a = p.parse_args(argv)
    addr = lambda s: (s.rsplit(":", 1)[0], int(s.rsplit(":", 1)[1]))  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), handler(addr(a.room), addr(a.api)))
    server.daemon_threads = True
    print(f"front on http://127.0.0.1:{a.port}/ -> room {a.room}, API {a.api}", file=sys.stderr, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
