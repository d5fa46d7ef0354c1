//! deploy/kubernetes and scripts/k8s-run.sh, as far as a machine without a cluster can take
//! them: the manifests rendered for 1, 3 and 16 shards against expected files (which
//! scripts/check-deploy.sh also validates against the Kubernetes API schema), and whole runs of
//! the script with deploy/kubernetes/fake-kubectl, whose pods are local loadgen processes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::runs::{FAST, field, temp};
use testkit::servers::{TestServer, refused_port};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn k8s_run(args: &[&str], kubectl_dir: Option<&Path>, state: &Path) -> Output {
    let mut command = Command::new("bash");
    command
        .arg(workspace().join("scripts/k8s-run.sh"))
        .args(args)
        .env("LOADGEN", env!("CARGO_BIN_EXE_loadgen"))
        .env("FAKE_KUBECTL_LOADGEN", env!("CARGO_BIN_EXE_loadgen"))
        .env("FAKE_KUBECTL_STATE", state);
    if let Some(dir) = kubectl_dir {
        let path = std::env::var("PATH").unwrap_or_default();
        command.env("PATH", format!("{}:{path}", dir.display()));
    }
    command.output().expect("run scripts/k8s-run.sh")
}

#[test]
fn manifests_render_as_the_expected_files() {
    let expected = workspace().join("deploy/kubernetes/expected");
    for shards in ["1", "3", "16"] {
        let out = temp(&format!("render-{shards}"));
        let output = k8s_run(
            &[
                "--render",
                out.to_str().unwrap(),
                "--start-at",
                "2026-12-04T10:00:00Z",
                "--name",
                "wstest-example",
                "--image",
                "registry.example.com/wstest:1",
                shards,
            ],
            None,
            &out,
        );
        assert!(output.status.success(), "{output:?}");
        let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
        testkit::check_expected(
            &expected.join(format!("loadgen-job-{shards}.yaml")),
            &read("loadgen-job.yaml"),
        );
        testkit::check_expected(&expected.join("server.yaml"), &read("server.yaml"));
    }
}

/// A fake `kubectl` first on PATH.
fn fake_kubectl() -> PathBuf {
    let dir = temp("fake-kubectl-bin");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("kubectl");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(workspace().join("deploy/kubernetes/fake-kubectl"), &link).unwrap();
    dir
}

/// The script end to end but for the cluster: its Job's pods (local processes here) run their
/// shards with the rendered arguments, and it merges their logs into the whole test; a shard
/// that fails fails the run, saying so; bad usage is refused.
#[test]
fn k8s_run_merges_the_logs_of_the_jobs_shards() {
    let server = TestServer::start(FAST);
    let kubectl = fake_kubectl();
    let url = server.url();
    let refused = format!("http://127.0.0.1:{}/test", refused_port());
    // Name, the script's arguments, the exit, and what its stdout or stderr must hold.
    let cases: &[(&str, Vec<&str>, bool, &[&str])] = &[
        (
            "three shards",
            vec![
                "--start-in",
                "1",
                "--name",
                "wstest-three",
                "--delete",
                "3",
                "-k",
                "-c",
                "6",
                "-n",
                "900",
                &url,
            ],
            true,
            &[
                "Shards:                 0, 1, 2 of 3",
                "Complete requests:      900",
                "Failed requests:        0",
            ],
        ),
        (
            "a shard fails",
            // Past ab's ten connect failures in a row, each shard gives up with ab's exit code.
            vec![
                "--start-in",
                "0",
                "--name",
                "wstest-refused",
                "2",
                "-c",
                "2",
                "-n",
                "40",
                &refused,
            ],
            false,
            &["job/wstest-refused: a shard failed"],
        ),
        ("no shards", vec!["0"], false, &["usage: "]),
        (
            "a render without a time",
            vec!["--render", "/nonexistent", "2"],
            false,
            &["--render needs --start-at TIME"],
        ),
        (
            "a bad name",
            vec!["--name", "Not_A_Name", "2"],
            false,
            &["a Job's name is lowercase"],
        ),
    ];
    for (name, args, success, wanted) in cases {
        let state = temp(&format!("fake-kubectl-{name}"));
        let out = temp(&format!("k8s-out-{name}"));
        let mut args = args.clone();
        args.splice(0..0, ["--out", out.to_str().unwrap()]);
        let output = k8s_run(&args, Some(&kubectl), &state);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.success(), *success, "{name}: {text}");
        for line in *wanted {
            assert!(text.contains(line), "{name}: no {line:?} in {text}");
        }
    }
    assert_eq!(server.requests(), 900);
    let merged = std::fs::read_to_string(temp("k8s-out-three shards").join("merged.txt")).unwrap();
    assert_eq!(field(&merged, "Concurrency Level"), Some("6"), "{merged}");
}
