"""`mafvar review` / `mafvar demo`: argument handling and the server command line."""
from __future__ import annotations

import os

from app import server as app_server
from mafvar.cli import build_parser, main


def test_review_binds_to_localhost_by_default():
    args = build_parser().parse_args(["review", "some/game"])
    assert (args.host, args.port, args.games) == ("127.0.0.1", 8501, ["some/game"])
    cmd = app_server.server_command(args.host, args.port, args.upload_limit_mb)
    assert cmd[cmd.index("--server.address") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--server.headless") + 1] == "true"
    assert cmd[cmd.index("--server.maxUploadSize") + 1] == "4096"  # MB: the 4 GB default
    assert str(app_server.MAIN) in cmd


def test_review_host_and_limit_are_configurable():
    args = build_parser().parse_args(["review", "--host", "0.0.0.0", "--port", "9000",
                                      "--upload-limit-mb", "10"])
    cmd = app_server.server_command(args.host, args.port, args.upload_limit_mb)
    assert cmd[cmd.index("--server.address") + 1] == "0.0.0.0"
    assert cmd[cmd.index("--server.port") + 1] == "9000"
    env = app_server.server_env([], args.upload_limit_mb)
    assert env["MAFVAR_UPLOAD_LIMIT"] == str(10 * 1024 ** 2)


def test_game_dirs_reach_the_app_through_the_environment(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    env = app_server.server_env([a, b], 4096)
    assert env["MAFVAR_GAMES"].split(os.pathsep) == [str(a), str(b)]


def test_review_refuses_a_missing_folder(tmp_path, capsys):
    assert main(["review", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_demo_refuses_a_folder_without_a_game(tmp_path, capsys):
    assert main(["demo", "--game", str(tmp_path)]) == 2
    assert "sample game is missing" in capsys.readouterr().err
