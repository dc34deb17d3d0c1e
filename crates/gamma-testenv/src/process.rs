//! Building, starting and stopping one `tools/kube-testenv` server process.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::error::{Error, Missing};
use crate::kubeconfig;

/// The start script, in this repository.
const START: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tools/kube-testenv/start"
);

/// How long a server may take from spawn to `ready` (a cold start takes seconds; the margin is
/// for a loaded CI machine).
const READY_TIMEOUT: Duration = Duration::from_secs(180);

/// How long a server may take to stop once its stdin is closed before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(60);

/// Builds are serialised: two channels started at once by two tests share one build.
static BUILD: Mutex<()> = Mutex::new(());

static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

/// A Gateway API release channel: which CRDs the server has installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Channel {
    /// `config/crd/standard/` of the Gateway API release.
    Standard,
    /// `config/crd/experimental/` of the Gateway API release (a superset of standard).
    Experimental,
}

impl Channel {
    /// The channel's name, as the start script's `--channel` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Standard => "standard",
            Channel::Experimental => "experimental",
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a private server runs (see [`TestEnv::start_with`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Keep the server's state (etcd data, credentials, ports) in the work dir, so that
    /// [`TestEnv::restart`] brings back the same cluster at the same URL with the same
    /// kubeconfig (kube-testenv `--data-dir`).
    pub restartable: bool,
    /// kube-apiserver's watch cache (default on, as in a cluster). Off, every watch is served
    /// from etcd, so [`TestEnv::compact_etcd`] expires the watches of older resourceVersions
    /// with 410 Gone (kube-testenv `--watch-cache=false`).
    pub watch_cache: bool,
    /// kube-apiserver `--runtime-config` entries, `group/version[/resource]=true|false`: APIs
    /// served beyond or short of kube-apiserver's defaults, e.g.
    /// `certificates.k8s.io/v1beta1/clustertrustbundles=true` (a beta API, off by default).
    /// Empty (the default): kube-apiserver's own API set, as in a cluster that changes none.
    pub runtime_config: Vec<String>,
    /// kube-apiserver `--feature-gates` entries, `Gate=true|false`, e.g.
    /// `ClusterTrustBundle=false`. Empty (the default): every gate at its default.
    pub feature_gates: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            restartable: false,
            watch_cache: true,
            runtime_config: Vec::new(),
            feature_gates: Vec::new(),
        }
    }
}

/// The release whose CRDs [`TestEnv::start`] installs (unless `GAMMA_UPSTREAM_DIR` names another
/// tree): the one most tests were written against.
pub const DEFAULT_RELEASE: &str = "v1.6.1";

/// A running real API server with the Gateway API CRDs of one release and channel installed.
#[derive(Debug)]
pub struct TestEnv {
    /// The release asked for (`v1.6.1`), see [`TestEnv::release`].
    release: String,
    channel: Channel,
    /// The CRD manifests installed (`config/crd/<channel>/` of the release tree).
    crd_dir: PathBuf,
    options: Options,
    binary: PathBuf,
    work_dir: PathBuf,
    kubeconfig: PathBuf,
    server_url: String,
    log: PathBuf,
    process: Mutex<Option<Running>>,
}

#[derive(Debug)]
struct Running {
    child: Child,
    // Held open for the server's lifetime: closing it (or this process exiting) stops the server.
    stdin: ChildStdin,
    // The server's stdout lines after `ready` (answers to stdin commands).
    answers: mpsc::Receiver<String>,
}

/// How long a stdin command (etcd compaction) may take to be answered.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

impl TestEnv {
    /// Builds the server if needed and starts a private instance with the
    /// [`DEFAULT_RELEASE`]'s CRDs of `channel` (or those of `$GAMMA_UPSTREAM_DIR`); returns once
    /// it printed `ready` (every CRD established and served). Prefer [`crate::shared`] in tests.
    pub fn start(channel: Channel) -> Result<TestEnv, Error> {
        TestEnv::start_with(channel, Options::default())
    }

    /// Whether [`TestEnv::start`] can start a server of `channel` here, without starting one:
    /// its CRDs are at hand and `tools/kube-testenv` builds (a no-op when the cached binary is
    /// current). The preconditions of [`crate::harness`] ask this.
    ///
    /// # Errors
    ///
    /// [`Error::Unavailable`] as [`TestEnv::start`] gives it.
    pub fn available(channel: Channel) -> Result<(), Error> {
        let tree = match std::env::var_os("GAMMA_UPSTREAM_DIR") {
            Some(dir) => dir,
            None => crate::upstream::release_tree(DEFAULT_RELEASE)?.into_os_string(),
        };
        upstream_crds(Some(&tree), channel)?;
        build(Path::new(START), None).map(drop)
    }

    /// [`TestEnv::start`] with `options`: a server that can be restarted, or one without a
    /// watch cache. For tests of faults, which need a server of their own.
    pub fn start_with(channel: Channel, options: Options) -> Result<TestEnv, Error> {
        let crd_dir = upstream_crds(crate::upstream::v1_6_1().as_deref(), channel)?;
        TestEnv::start_crds(DEFAULT_RELEASE, channel, crd_dir, options)
    }

    /// A private server with the CRDs of Gateway API `release` (a patch release such as
    /// `v1.7.0`, any of [`crate::upstream::RELEASES`] or another the fetch tool can get) and
    /// `channel`, from [`crate::upstream::release_tree`]. Prefer [`crate::shared_release`] in
    /// tests that do not change the CRDs.
    ///
    /// (Named by the release's text, not gamma-model's `Bundle`: gamma-model's tests use this
    /// crate, which therefore cannot use gamma-model.)
    pub fn start_release(release: &str, channel: Channel) -> Result<TestEnv, Error> {
        TestEnv::start_release_with(release, channel, Options::default())
    }

    /// [`TestEnv::start_release`] with `options`.
    pub fn start_release_with(
        release: &str,
        channel: Channel,
        options: Options,
    ) -> Result<TestEnv, Error> {
        let tree = crate::upstream::release_tree(release)?;
        let crd_dir = upstream_crds(Some(tree.as_os_str()), channel)?;
        TestEnv::start_crds(release, channel, crd_dir, options)
    }

    fn start_crds(
        release: &str,
        channel: Channel,
        crd_dir: PathBuf,
        options: Options,
    ) -> Result<TestEnv, Error> {
        let binary = build(Path::new(START), None)?;
        let work_dir = new_work_dir(channel)?;
        let kubeconfig = work_dir.join("kubeconfig");
        let log = work_dir.join("server.log");
        let mut env = TestEnv {
            release: release.to_owned(),
            channel,
            crd_dir,
            options,
            binary,
            work_dir,
            kubeconfig,
            server_url: String::new(),
            log,
            process: Mutex::new(None),
        };
        env.spawn()?;
        let text = fs::read_to_string(&env.kubeconfig)
            .map_err(Error::io(format!("read {}", env.kubeconfig.display())))?;
        env.server_url = kubeconfig::server_url(&text).map_err(|detail| env.start_error(detail))?;
        Ok(env)
    }

    /// Stops the server and starts it again on the same state: every object kept, the same
    /// URL and kubeconfig. Returns once it is `ready` again. Only for a server started
    /// [`Options::restartable`].
    pub fn restart(&self) -> Result<(), Error> {
        if !self.options.restartable {
            return Err(Error::Stop {
                detail: "restart needs a server started with Options { restartable: true }"
                    .to_owned(),
            });
        }
        self.shut_down()?;
        self.spawn()
    }

    /// Compacts etcd's history to its current revision (what kube-apiserver's compactor does
    /// every five minutes): with [`Options::watch_cache`] off, a watch from an older
    /// resourceVersion is then refused with 410 Gone. Returns the revision compacted to.
    pub fn compact_etcd(&self) -> Result<u64, Error> {
        use std::io::Write as _;
        let mut guard = self
            .process
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(running) = guard.as_mut() else {
            return Err(Error::Stop {
                detail: "the server is not running".to_owned(),
            });
        };
        running
            .stdin
            .write_all(b"compact\n")
            .and_then(|()| running.stdin.flush())
            .map_err(Error::io("send `compact` to the server"))?;
        let answer = running
            .answers
            .recv_timeout(COMMAND_TIMEOUT)
            .map_err(|e| Error::Stop {
                detail: format!("no answer to `compact`: {e}"),
            })?;
        answer
            .strip_prefix("compacted ")
            .and_then(|rev| rev.parse().ok())
            .ok_or_else(|| Error::Stop {
                detail: format!("`compact` failed: {answer}"),
            })
    }

    /// Starts the server process and waits for `ready`.
    fn spawn(&self) -> Result<(), Error> {
        let log_file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .map_err(Error::io(format!("open {}", self.log.display())))?;
        let mut child = Command::new(&self.binary)
            .args(self.server_args())
            // The server makes its temp dir here, so that stop can check it is gone.
            .env("TMPDIR", &self.work_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(Error::io(format!("run {}", self.binary.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(Error::Stop {
                detail: "child process has no stdin/stdout pipe".to_owned(),
            });
        };
        let (ready, answers) = read_stdout(stdout);
        *self
            .process
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Running {
            child,
            stdin,
            answers,
        });
        self.wait_ready(ready)
    }

    /// The start script's arguments for this server: its kubeconfig, CRDs and [`Options`].
    fn server_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![
            "--kubeconfig".into(),
            self.kubeconfig.clone().into(),
            "--channel".into(),
            self.channel.as_str().into(),
            "--crd-dir".into(),
            self.crd_dir.clone().into(),
            format!("--watch-cache={}", self.options.watch_cache).into(),
        ];
        if self.options.restartable {
            args.extend(["--data-dir".into(), self.work_dir.join("data").into()]);
        }
        // Left out when empty, so that the default server is kube-apiserver's default.
        if !self.options.runtime_config.is_empty() {
            args.push(format!("--runtime-config={}", self.options.runtime_config.join(",")).into());
        }
        if !self.options.feature_gates.is_empty() {
            args.push(format!("--feature-gates={}", self.options.feature_gates.join(",")).into());
        }
        args
    }

    /// The channel whose CRDs are installed.
    pub fn channel(&self) -> Channel {
        self.channel
    }

    /// The Gateway API release whose CRDs were installed at start (`v1.6.1`: the
    /// [`DEFAULT_RELEASE`] for [`TestEnv::start`], unless `$GAMMA_UPSTREAM_DIR` named another
    /// tree). A test may install others over them.
    pub fn release(&self) -> &str {
        &self.release
    }

    /// The folder of CRD manifests installed at start (`config/crd/<channel>/` of the release
    /// tree).
    pub fn crd_dir(&self) -> &Path {
        &self.crd_dir
    }

    /// The admin kubeconfig (server URL, CA data, bearer token), for kubectl or kube-rs.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The API server's URL, `https://127.0.0.1:PORT`.
    pub fn server_url(&self) -> &str {
        &self.server_url
    }

    /// The server's log (its stderr).
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// The directory holding the kubeconfig, the log and the server's own temp dir.
    pub fn work_dir(&self) -> &Path {
        &self.work_dir
    }

    /// A fresh unique namespace name for one test; see [`crate::namespace_name`].
    pub fn namespace_name(&self, hint: &str) -> String {
        crate::namespace_name(hint)
    }

    /// Stops the server (closes its stdin, waits for it), checks that it removed its temp dir,
    /// and removes the work dir.
    pub fn stop(self) -> Result<(), Error> {
        let result = self.shut_down();
        let leftovers = server_temp_dirs(&self.work_dir);
        let _ = fs::remove_dir_all(&self.work_dir);
        result?;
        if leftovers.is_empty() {
            Ok(())
        } else {
            Err(Error::Stop {
                detail: format!("the server left its temp dir behind: {leftovers:?}"),
            })
        }
    }

    fn shut_down(&self) -> Result<(), Error> {
        let running = match self.process.lock() {
            Ok(mut guard) => guard.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        let Some(Running {
            mut child, stdin, ..
        }) = running
        else {
            return Ok(());
        };
        drop(stdin);
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    return Err(Error::Stop {
                        detail: format!("server exited with {status}; log {}", self.log.display()),
                    });
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(Error::Stop {
                        detail: format!("server did not stop within {STOP_TIMEOUT:?}; killed"),
                    });
                }
                Err(e) => return Err(Error::io("wait for the server")(e)),
            }
        }
    }

    /// Waits for the line `ready` on the server's stdout; any other outcome (exit, timeout) is
    /// a start error carrying the log's tail.
    fn wait_ready(&self, rx: mpsc::Receiver<()>) -> Result<(), Error> {
        match rx.recv_timeout(READY_TIMEOUT) {
            Ok(()) => Ok(()),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = self.shut_down();
                Err(self.start_error("the server exited before printing `ready`".to_owned()))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Ok(mut guard) = self.process.lock()
                    && let Some(running) = guard.as_mut()
                {
                    let _ = running.child.kill();
                }
                let _ = self.shut_down();
                Err(self.start_error(format!("no `ready` within {READY_TIMEOUT:?}")))
            }
        }
    }

    fn start_error(&self, detail: String) -> Error {
        Error::Start {
            detail,
            log: self.log.clone(),
            log_tail: tail(&fs::read_to_string(&self.log).unwrap_or_default(), 30),
        }
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        let _ = self.shut_down();
        let _ = fs::remove_dir_all(&self.work_dir);
    }
}

/// Reads the server's stdout on a thread: the first receiver gets `()` at the line `ready`, the
/// second every line after it (the answers to stdin commands).
fn read_stdout(stdout: std::process::ChildStdout) -> (mpsc::Receiver<()>, mpsc::Receiver<String>) {
    let (ready_tx, ready) = mpsc::channel();
    let (answers_tx, answers) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        for line in lines.by_ref() {
            let Ok(line) = line else { return };
            if line == "ready" {
                let _ = ready_tx.send(());
                break;
            }
        }
        for line in lines {
            let Ok(line) = line else { return };
            if answers_tx.send(line).is_err() {
                return;
            }
        }
    });
    (ready, answers)
}

/// Checks that `<upstream>/config/crd/<channel>/` exists (`upstream`: `$GAMMA_UPSTREAM_DIR`).
fn upstream_crds(upstream: Option<&OsStr>, channel: Channel) -> Result<PathBuf, Error> {
    let Some(upstream) = upstream else {
        return Err(Error::Unavailable {
            missing: Missing::UpstreamCrds,
            detail: "no Gateway API v1.6.1 release tree: GAMMA_UPSTREAM_DIR is not set and it could not be fetched (see the line above)".to_owned(),
        });
    };
    let dir = Path::new(upstream)
        .join("config")
        .join("crd")
        .join(channel.as_str());
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(Error::Unavailable {
            missing: Missing::UpstreamCrds,
            detail: format!("no CRD directory {}", dir.display()),
        })
    }
}

/// Runs `<script> --build-only` (a no-op when the cached binary is current) and returns the
/// binary's path; `path` replaces `PATH` for it.
fn build(script: &Path, path: Option<&OsStr>) -> Result<PathBuf, Error> {
    let _guard = BUILD
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut command = Command::new(script);
    command.arg("--build-only").stdin(Stdio::null());
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let output = command
        .output()
        .map_err(Error::io(format!("run {}", script.display())))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {}
        // The script's exit code for "no go on PATH".
        Some(127) => {
            return Err(Error::Unavailable {
                missing: Missing::Go,
                detail: tail(&stderr, 5),
            });
        }
        _ => {
            return Err(Error::Unavailable {
                missing: Missing::Build,
                detail: format!(
                    "building tools/kube-testenv failed ({}):\n{}",
                    output.status,
                    tail(&stderr, 20)
                ),
            });
        }
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().last() {
        Some(path) if !path.is_empty() => Ok(PathBuf::from(path)),
        _ => Err(Error::Unavailable {
            missing: Missing::Build,
            detail: "the build printed no binary path".to_owned(),
        }),
    }
}

/// The root of all work dirs: `$TMPDIR/gamma-testenv`.
fn work_root() -> PathBuf {
    std::env::temp_dir().join("gamma-testenv")
}

/// A fresh work dir `<root>/<pid>-<channel>-<n>`, after removing those of processes that are
/// gone (a shared server's test binary never drops it: its server removed its own temp dir,
/// but the kubeconfig and log stay until the next run sweeps them).
fn new_work_dir(channel: Channel) -> Result<PathBuf, Error> {
    let root = work_root();
    sweep_stale(&root);
    let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
    let dir = root.join(format!("{}-{channel}-{n}", std::process::id()));
    fs::create_dir_all(&dir).map_err(Error::io(format!("create {}", dir.display())))?;
    Ok(dir)
}

fn sweep_stale(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.split('-').next()) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The server's temp dirs (`kube-testenv-*`) still under `work_dir`.
fn server_temp_dirs(work_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(work_dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("kube-testenv-"))
        .map(|e| e.path())
        .collect()
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .get(lines.len().saturating_sub(n)..)
        .unwrap_or_default()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server not started: only its arguments are read (its work dir never exists, so the
    /// removal on drop touches nothing).
    fn unstarted(options: Options) -> TestEnv {
        let work_dir = std::env::temp_dir().join(format!(
            "gamma-testenv-args-{}-never-created",
            std::process::id()
        ));
        TestEnv {
            release: DEFAULT_RELEASE.to_owned(),
            channel: Channel::Experimental,
            crd_dir: PathBuf::from("crds"),
            options,
            binary: PathBuf::new(),
            kubeconfig: work_dir.join("kubeconfig"),
            log: work_dir.join("server.log"),
            work_dir,
            server_url: String::new(),
            process: Mutex::new(None),
        }
    }

    fn args(env: &TestEnv) -> Vec<String> {
        env.server_args()
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    // kube-apiserver's --runtime-config and --feature-gates each take one comma-separated
    // list of key=value pairs; the default server passes neither, so it serves kube-apiserver's
    // default API set (the tests of an API that is not served rely on that).
    #[test]
    fn runtime_config_and_feature_gates_reach_the_server_only_when_set() {
        let default = args(&unstarted(Options::default()));
        assert!(
            !default
                .iter()
                .any(|a| a.starts_with("--runtime-config") || a.starts_with("--feature-gates")),
            "{default:?}"
        );
        let set = args(&unstarted(Options {
            runtime_config: vec![
                "certificates.k8s.io/v1beta1/clustertrustbundles=true".to_owned(),
                "certificates.k8s.io/v1/clustertrustbundles=false".to_owned(),
            ],
            feature_gates: vec!["ClusterTrustBundle=true".to_owned()],
            ..Options::default()
        }));
        assert!(
            set.contains(
                &"--runtime-config=certificates.k8s.io/v1beta1/clustertrustbundles=true,\
                  certificates.k8s.io/v1/clustertrustbundles=false"
                    .to_owned()
            ),
            "{set:?}"
        );
        assert!(
            set.contains(&"--feature-gates=ClusterTrustBundle=true".to_owned()),
            "{set:?}"
        );
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail("a\n", 5), "a");
        assert_eq!(tail("", 3), "");
    }

    #[test]
    fn missing_upstream_tree_is_unavailable_naming_it() {
        let err = upstream_crds(None, Channel::Standard).unwrap_err();
        assert!(
            matches!(&err, Error::Unavailable { missing: Missing::UpstreamCrds, detail } if detail.contains("GAMMA_UPSTREAM_DIR")),
            "{err}"
        );
        let empty = std::env::temp_dir();
        let err = upstream_crds(Some(empty.as_os_str()), Channel::Experimental).unwrap_err();
        assert!(
            matches!(&err, Error::Unavailable { missing: Missing::UpstreamCrds, detail } if detail.contains("config/crd/experimental")),
            "{err}"
        );
    }

    /// With no `go` on PATH the build is unavailable, and the message says so (not a failure).
    #[test]
    fn missing_go_is_unavailable_naming_go() {
        // A PATH holding only what the script needs before it looks for go.
        let bin = std::env::temp_dir().join(format!("gamma-testenv-nogo-{}", std::process::id()));
        fs::create_dir_all(&bin).unwrap();
        for tool in ["bash", "dirname"] {
            let found = ["/usr/bin", "/bin"]
                .iter()
                .map(|d| Path::new(d).join(tool))
                .find(|p| p.exists())
                .unwrap();
            let link = bin.join(tool);
            let _ = fs::remove_file(&link);
            std::os::unix::fs::symlink(found, link).unwrap();
        }
        let err = build(Path::new(START), Some(bin.as_os_str())).unwrap_err();
        fs::remove_dir_all(&bin).unwrap();
        assert!(
            matches!(&err, Error::Unavailable { missing: Missing::Go, detail } if detail.contains("go not found")),
            "{err}"
        );
    }

    #[test]
    fn channel_names_are_the_release_directories() {
        assert_eq!(Channel::Standard.as_str(), "standard");
        assert_eq!(Channel::Experimental.to_string(), "experimental");
    }
}
