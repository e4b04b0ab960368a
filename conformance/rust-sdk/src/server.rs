//! The embedded server as a real child process, started the way the Python suite starts it
//! (conformance/python-sdk/conftest.py): `node --import tsx server/main.ts --fresh` on a fresh
//! SQLite file in a temp dir, port 0 (the server prints the port it got), explicit role tokens.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const WORKER_TOKEN: &str = "conformance-worker-token";
pub const OPERATOR_TOKEN: &str = "conformance-operator-token";
pub const ADMIN_TOKEN: &str = "conformance-admin-token";

/// How long the server may take to print its address (tsx compiles the server on a cold start).
const START_DEADLINE: Duration = Duration::from_secs(90);

pub struct EmbeddedServer {
    pub url: String,
    child: Child,
    data_dir: PathBuf,
    output: Arc<Mutex<Vec<String>>>,
}

/// The Breakwater checkout: BREAKWATER_ROOT when set (conformance/rust-sdk/cargo.sh sets it),
/// else two levels above this crate.
pub fn repo_root() -> PathBuf {
    match std::env::var_os("BREAKWATER_ROOT") {
        Some(root) => PathBuf::from(root),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
    }
}

impl EmbeddedServer {
    pub fn start() -> Result<Self, String> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| e.to_string())?
            .as_nanos();
        let data_dir =
            std::env::temp_dir().join(format!("bw-rust-sdk-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&data_dir).map_err(|e| format!("temp dir: {e}"))?;
        let mut child = Command::new("node")
            .args(["--import", "tsx", "server/main.ts", "--fresh"])
            .current_dir(repo_root())
            .env("DW_EMBEDDED_DATA", data_dir.join("conformance.db"))
            .env("DW_EMBEDDED_PORT", "0")
            .env("DW_WORKER_TOKEN", WORKER_TOKEN)
            .env("DW_OPERATOR_TOKEN", OPERATOR_TOKEN)
            .env("DW_ADMIN_TOKEN", ADMIN_TOKEN)
            // Runs must only move because the SDK moved them.
            .env("DW_AUTO_REPAIR", "0")
            .env_remove("DW_AUTH_TOKEN")
            .env_remove("DW_AUTH_DRIVER")
            .env_remove("DW_DEFAULT_NAMESPACE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start node (is it on PATH?): {e}"))?;
        let output = Arc::new(Mutex::new(Vec::new()));
        let (found, address) = mpsc::channel();
        drain(child.stdout.take(), Arc::clone(&output), Some(found));
        drain(child.stderr.take(), Arc::clone(&output), None);
        let mut server = EmbeddedServer {
            url: String::new(),
            child,
            data_dir,
            output,
        };
        match address.recv_timeout(START_DEADLINE) {
            Ok(url) => {
                server.url = url;
                Ok(server)
            }
            Err(_) => Err(format!(
                "embedded server did not start:\n{}",
                server.output_tail(40)
            )),
        }
    }

    /// The server's last lines, for a failure message.
    pub fn output_tail(&self, lines: usize) -> String {
        let output = self.output.lock().map(|o| o.clone()).unwrap_or_default();
        output[output.len().saturating_sub(lines)..].join("\n")
    }
}

/// Copies one pipe's lines into `output`; sends the first `listening on http://…` address.
fn drain(
    pipe: Option<impl Read + Send + 'static>,
    output: Arc<Mutex<Vec<String>>>,
    found: Option<mpsc::Sender<String>>,
) {
    let Some(pipe) = pipe else { return };
    thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if let (Some(found), Some(at)) = (&found, line.find("listening on http://127.0.0.1:")) {
                let rest = &line[at + "listening on ".len()..];
                let url = rest.split_whitespace().next().unwrap_or(rest);
                let _ = found.send(url.to_string());
            }
            if let Ok(mut output) = output.lock() {
                output.push(line);
            }
        }
    });
}

impl Drop for EmbeddedServer {
    /// SIGTERM, then SIGKILL after 15 s: the server never outlives the suite.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
            let end = Instant::now() + Duration::from_secs(15);
            while Instant::now() < end && matches!(self.child.try_wait(), Ok(None)) {
                thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}
