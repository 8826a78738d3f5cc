"""Exit 0 when every named Debian package is installed, 1 otherwise."""
import subprocess
import sys

missing = []
for name in sys.argv[1:]:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True)
    if "install ok installed" not in out.stdout:
        missing.append(name)
if missing:
    print("missing system packages:", " ".join(missing))
sys.exit(1 if missing else 0)
