"""Tools as adapters: a toy tool registered here alone is rendered, preflighted and run.

The toy is a shell script (``sh -c``) that writes one line per load point to an output file:
nothing outside this test module knows it, yet ``plan_workloads``, ``preflight``, the fleet
(through the local executor), the manifest and the ``anfperf`` command all take it. Its
renderer, its render option (``greeting``, ``anfperf workloads --greeting``) and where its
program is on a host (the inventory's ``toy:``) are in the adapter alone too.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from anfperf.cli import main
from anfperf.errors import ParseError
from anfperf.runner import (
    load_inventory,
    local_inventory,
    plan_workloads,
    preflight_inventory,
    run_inventory,
)
from anfperf.tools import (
    HostTask,
    ToolAdapter,
    ToolOption,
    get_tool,
    register,
    render_files,
    tool_names,
    unregister,
)
from anfperf.workloads import get_workload

#: What the toy runs: its parameter file's lines, one per load point, into its output.
TOY_SCRIPT = 'while read -r line; do printf "toy %s\\n" "$line"; done < "$1" > "$2"; exit "$3"'


class ToyTool(ToolAdapter):
    """``sh -c`` reading a parameter file: one line per load point (bs, read share, threads)."""

    name = "toy"
    output_format = "toy_text"
    inventory_key = "toy"  # `toy: /path/to/sh` in an inventory: the shell it runs with
    options = (ToolOption("greeting", "what each line of the toy's file starts with", "WORD"),)

    def render_files(
        self,
        workload: Any,
        volumes: Sequence[str],
        hosts: Sequence[str] = (),
        *,
        max_iops: float | None = None,
        greeting: str | None = None,
    ) -> dict[str, str]:
        lines = [f"bs={workload.bs_kib:g}k read={p.read_pct} " for p in workload.points()]
        text = "".join(f"{greeting + ' ' if greeting else ''}{line}dir={volumes[0]}\n"
                       for line in lines)  # fmt: skip
        return {f"{workload.name}.toy": text}

    def tasks(
        self, workload, hosts, *, duration_s, max_iops=None, timeout_s=None, live_interval_s=None
    ):
        tasks = {}
        for host in hosts:
            ((name, text),) = self.render_files(workload, list(host.volumes.values())).items()
            exit_code = "3" if "fail" in workload.name.lower() else "0"
            shell = self.launcher(host) or "sh"
            tasks[host.name] = HostTask(
                argv=(shell, "-c", TOY_SCRIPT, "toy", name, f"{workload.name}.out", exit_code),
                files={name: text},
                outputs=(f"{workload.name}.out",),
                duration_s=duration_s,
                timeout_s=timeout_s,
            )
        return tasks

    def failure_reason(self, output: str, folders=()) -> str | None:
        return "the toy refused: " + ", ".join(sorted(p.name for p in folders))

    def probe(self, launcher: str | None = None) -> list[str]:
        return [f"s toy; command -v {shlex.quote(launcher or 'sh')} >/dev/null && echo toy-1.0"]

    def parse_facts(self, sections: Mapping[str, str]) -> dict[str, Any]:
        return {"toy_version": sections.get("toy", "").strip() or None}

    def summary(self, facts: Mapping[str, Any]) -> str | None:
        return facts.get("toy_version") or "no toy"


@pytest.fixture
def toy():
    adapter = register(ToyTool())
    yield adapter
    unregister("toy")
    with pytest.raises(ValueError, match="not 'toy'"):
        get_tool("toy")


def tiny(seed: str = "RndRead", **changes: Any):
    base = {"duration_s": 1, "warmup_s": 0, "file_size_gib": 4 / 1024, "threads": [2, 4]}
    return get_workload(seed).replace(**{**base, **changes})


def test_a_toy_tool_is_known_by_registering_it_alone(toy):
    assert tool_names(runnable=True) == ("fio", "vdbench", "toy") and get_tool("toy") is toy
    assert [get_tool(n).output_format for n in tool_names()] == [
        "fio_json", "vdbench", "diskspd", "toy_text"
    ]  # fmt: skip
    with pytest.raises(ValueError, match="registered already"):
        register(ToyTool())
    with pytest.raises(ValueError, match="one of 'fio', 'vdbench', 'toy', not 'diskspd'"):
        get_tool("diskspd", runnable=True)  # rendered only: the runner cannot launch it


def test_toy_tool_is_preflighted_planned_and_run_through_the_local_executor(toy, tmp_path):
    inv = local_inventory({"data": str(tmp_path / "data")}, name="here", workdir=str(tmp_path))
    (tmp_path / "data").mkdir()
    reports = preflight_inventory(inv, tool="toy")
    assert reports["here"].facts["toy_version"] == "toy-1.0" and reports["here"].ok

    plan = plan_workloads([tiny(), tiny("SeqWrite")], inv, tool="toy", run_id="toyrun")
    assert [s.tool for s in plan.steps] == ["toy", "toy"]
    manifest = run_inventory(plan, inv, tmp_path / "raw", reports=reports)

    assert manifest.status == "complete"
    out = (tmp_path / "raw" / "toyrun" / "here" / "RndRead.out").read_text().splitlines()
    assert out == [f"toy bs=8k read=100 dir={tmp_path / 'data'}"] * 2  # threads 2 and 4
    data = json.loads((tmp_path / "raw" / "toyrun" / "manifest.json").read_text())
    assert data["tools"] == ["toy"] and data["plan_options"]["tool"] == "toy"
    task = data["steps"][0]["tasks"]["here"]
    assert task["tool_version"] == "toy-1.0" and task["collected"] == ["here/RndRead.out"]


def test_toy_tool_failure_is_explained_by_its_adapter(toy, tmp_path):
    inv = local_inventory({"data": str(tmp_path)}, name="here", workdir=str(tmp_path))
    plan = plan_workloads([tiny("RndRead", name="ToyFail")], inv, tool="toy", run_id="bad")
    manifest = run_inventory(plan, inv, tmp_path / "raw")
    task = manifest.task(0, "here")
    assert task["status"] == "failed"
    assert task["reason"] == "exit code 3: the toy refused: ToyFail.out"


def test_cli_renders_and_runs_the_toy_tool(toy, tmp_path, capsys):
    assert main(["workloads", "RndRead", "--tool", "toy", "--volume", "/mnt/x"]) == 0
    assert capsys.readouterr().out == "bs=8k read=100 dir=/mnt/x\n"
    out_dir = tmp_path / "raw"
    args = ["run", "RndRead", "--tool", "toy", "--volume", str(tmp_path), "--out", str(out_dir),
            "--run-id", "clitoy", "--set", "duration_s=1", "--set", "warmup_s=0"]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "toy-1.0" in printed and "complete: raw outputs" in printed
    assert Path(out_dir, "clitoy", "manifest.json").exists()


def test_toy_tool_renders_with_its_own_option_through_the_api_and_the_cli(toy, capsys):
    """Issue 28: renderer and options live in the adapter; nothing else names them."""
    w = get_workload("RndRead").replace(threads=[2])
    files, errors = render_files([w], "toy", ["/mnt/x"], ["vm1"], greeting="hello")
    assert files == {"RndRead.toy": "hello bs=8k read=100 dir=/mnt/x\n"} and errors == {}
    # the option reaches only its own tool: Vdbench's renderer never sees a greeting
    vdb, _ = render_files([w], "vdbench", ["/mnt/x"], greeting="hello", user="bench")
    assert "hello" not in vdb["RndRead.parm"]
    with pytest.raises(TypeError, match="options no tool has: colour"):
        render_files([w], "toy", ["/mnt/x"], colour="red")

    args = ["workloads", "RndRead", "--tool", "toy", "--volume", "/mnt/x", "--greeting", "hi"]
    assert main(args) == 0
    assert capsys.readouterr().out == "hi bs=8k read=100 dir=/mnt/x\n"
    with pytest.raises(SystemExit):
        main(["workloads", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "--greeting WORD what each line of the toy's file starts with" in helped


def test_unregistered_toy_option_is_unknown_to_the_cli(capsys):
    with pytest.raises(SystemExit):
        main(["workloads", "RndRead", "--tool", "fio", "--greeting", "hi"])
    assert "unrecognized arguments: --greeting hi" in capsys.readouterr().err


def test_toy_program_is_read_from_the_inventory_key_its_adapter_names(toy, tmp_path):
    (tmp_path / "data").mkdir()
    # the toy's own shell: marks that it ran, then is sh
    shell = tmp_path / "toy-sh"
    shell.write_text(f'#!/bin/sh\necho ran >> {tmp_path / "marker"}\nexec sh "$@"\n')
    shell.chmod(0o755)
    path = tmp_path / "inv.yml"
    path.write_text(
        f"workdir: {tmp_path / 'wd'}\nvolumes: {{data: {tmp_path / 'data'}}}\n"
        f"hosts:\n  here: {{local: true, toy: {shell}}}\n"
    )
    inv = load_inventory(path)
    assert inv["here"].launchers == {"toy": str(shell)}
    reports = preflight_inventory(inv, tool="toy")
    assert reports["here"].facts["toy_version"] == "toy-1.0"
    plan = plan_workloads([tiny()], inv, tool="toy", run_id="own")
    assert plan.steps[0].tasks["here"].argv[0] == str(shell)
    assert run_inventory(plan, inv, tmp_path / "raw").status == "complete"
    assert (tmp_path / "marker").read_text() == "ran\n"
    unregister("toy")  # without the adapter, its key is no inventory setting
    with pytest.raises(ParseError, match=r"host here: unknown keys \['toy'\]"):
        load_inventory(path)
    # a text setting like any other: a number is refused, naming the key
    path.write_text(path.read_text().replace(f"toy: {shell}", "toy: 5"))
    register(ToyTool())
    with pytest.raises(ParseError, match="toy must be text, not the number 5"):
        load_inventory(path)
