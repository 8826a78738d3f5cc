"""`mafvar audit --cluster` on a real dask.distributed LocalCluster (localhost only)."""
from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from audit_support import findings, incident_keys

from dask.distributed import Client, LocalCluster

from review.audit import audit

pytestmark = pytest.mark.slow


@pytest.fixture
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as c:
        yield c


def test_a_cluster_audit_finds_the_same_incidents_as_the_local_one(local_audit, make_folder, tmp_path, cluster):
    local_folder, local = local_audit
    assert all(g.status.value == "done" for g in local.games)
    folder = make_folder(tmp_path / "t", broken=("game99",))
    report = audit(folder, cluster=cluster.scheduler_address)
    by_name = {Path(g.game).name: g for g in report.games}
    assert set(by_name) == {"game11", "game12", "game13", "game99"}
    for name in ("game11", "game12", "game13"):
        assert by_name[name].status.value == "done", by_name[name]
        assert findings(folder / name) == findings(local_folder / name), name
        assert by_name[name].incidents == len(incident_keys(folder / name))
    assert all(findings(folder / n)[1] for n in ("game11", "game12", "game13"))   # every game recounted
    # the broken game failed on its own, with the engine's message, and was not retried into a crash
    assert by_name["game99"].status.value == "failed" and "protocol.json" in by_name["game99"].message
    # the work ran on the cluster's workers, which wrote into the shared workspaces
    with Client(cluster.scheduler_address) as client:
        pids = set(client.run(os.getpid).values())
    ran_on = {int(by_name[n].worker.rsplit(":", 1)[1]) for n in ("game11", "game12", "game13")}
    assert ran_on <= pids and os.getpid() not in ran_on
    assert report.to_json()["backend"] == "dask"


def test_killing_a_worker_mid_audit_does_not_fail_the_audit(make_folder, tmp_path, cluster):
    folder = make_folder(tmp_path / "t")
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(report=audit(folder, cluster=cluster.scheduler_address)))
    thread.start()
    with Client(cluster.scheduler_address) as client:
        victim_game = victim_worker = None
        # Watch until a task is seen running or the audit ends: no wall-clock
        # bound, so a slow or busy machine only makes the test slower.
        while victim_game is None and thread.is_alive():
            # a task is running and its analysis has begun writing the workspace
            for worker, keys in client.processing().items():
                for key in keys:
                    name = str(key).split("-")[2]
                    if (folder / name / "analysis").is_dir():
                        victim_game, victim_worker = name, worker
                        break
                if victim_game:
                    break
            time.sleep(0.05)
        assert victim_game, "no audit task was seen running"
        pid = client.run(os.getpid, workers=[victim_worker])[victim_worker]
        assert not (folder / victim_game / "analysis" / "clips.done").exists(), "killed too late"
        os.kill(pid, signal.SIGKILL)
        thread.join(timeout=1800)  # a hang guard only, far above any real run
    assert not thread.is_alive(), "the audit did not finish after a worker was killed"
    report = result["report"]
    assert [g.status.value for g in report.games] == ["done", "done", "done"], report.to_json()
    by_name = {Path(g.game).name: g for g in report.games}
    assert by_name[victim_game].worker.rsplit(":", 1)[1] != str(pid)  # finished by another process
    assert (folder / victim_game / "analysis" / "incidents.json").is_file()
