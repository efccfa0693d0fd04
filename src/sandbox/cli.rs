//! `paydesk sandbox`: the arguments (a clap `Args` struct, so `main` only dispatches) and
//! the foreground run that prints the base URL and the demo credentials, then serves until
//! Ctrl+C.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::error::SandboxError;
use super::faults::{FaultRule, check_rules};
use super::fixture::Fixture;
use super::server::{Sandbox, SandboxConfig};
use crate::clock::SystemClock;

/// Run the local Partner API sandbox in the foreground.
#[derive(Debug, Clone, Args)]
pub struct SandboxArgs {
    /// Address to listen on (loopback only is recommended: admin routes are unsigned).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Fixture file (TOML) replacing the shipped "Kadıköy Kahve Evi" fixture entirely.
    #[arg(long, value_name = "FILE")]
    pub fixture: Option<PathBuf>,
    /// Seed for identifiers and fault probabilities (reproducible runs).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    #[arg(
        long,
        value_name = "FILE",
        help = "SQLite file keeping links, cards and idempotency keys across restarts"
    )]
    pub state: Option<PathBuf>,
    #[arg(
        long = "fault",
        value_name = "RULE",
        help = "Fault rule ENDPOINT:KIND[=MS][@next=N|@p=P], e.g. link.create:lost@next=1 \
                (repeatable, at most 100; kinds: delay, error500, lost, rate_limit, stall; \
                delay and stall at most 60000 ms)"
    )]
    pub faults: Vec<FaultRule>,
}

impl SandboxArgs {
    /// The server configuration these arguments describe.
    pub fn config(&self) -> Result<SandboxConfig, SandboxError> {
        check_rules(0, &self.faults)?;
        let fixture = match &self.fixture {
            Some(path) => Fixture::from_path(path)?,
            None => Fixture::shipped(),
        };
        Ok(SandboxConfig {
            addr: self.addr,
            fixture,
            seed: self.seed,
            clock: Arc::new(SystemClock),
            state_file: self.state.clone(),
            faults: self.faults.clone(),
        })
    }
}

/// Runs the sandbox until Ctrl+C.
pub fn run(args: &SandboxArgs) -> Result<(), SandboxError> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("paydesk=info")),
        )
        .try_init();
    let config = args.config()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let demo = config
            .fixture
            .api_keys
            .first()
            .map(|k| (k.key.clone(), k.secret.expose().to_owned()));
        let state = config.state_file.clone();
        let handle = Sandbox::start_with(config).await?;
        println!("paydesk sandbox listening on {}", handle.base_url());
        if let Some((key, secret)) = demo {
            println!("  API key:    {key}");
            println!("  API secret: {secret}   (public test value)");
        }
        match state {
            Some(path) => println!("  state:      {}", path.display()),
            None => println!("  state:      in memory (use --state FILE to keep it)"),
        }
        println!(
            "  admin:      {}/sandbox  (links, state, faults)",
            handle.base_url()
        );
        println!("Press Ctrl+C to stop.");
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!("cannot listen for Ctrl+C: {e}");
            std::future::pending::<()>().await;
        }
        handle.shutdown();
        handle.stopped().await;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::sandbox::faults::FaultKind;

    #[derive(Debug, Parser)]
    struct Cmd {
        #[command(flatten)]
        args: SandboxArgs,
    }

    #[test]
    fn flags_parse_into_a_config() {
        let cmd = Cmd::try_parse_from([
            "sandbox",
            "--addr",
            "127.0.0.1:0",
            "--seed",
            "7",
            "--state",
            "/tmp/x.sqlite",
            "--fault",
            "link.create:delay=100@next=2",
            "--fault",
            "*:lost@p=0.5",
        ])
        .unwrap();
        let config = cmd.args.config().unwrap();
        assert_eq!(config.addr.port(), 0);
        assert_eq!(config.seed, Some(7));
        assert_eq!(config.state_file, Some(PathBuf::from("/tmp/x.sqlite")));
        assert_eq!(config.faults.len(), 2);
        assert_eq!(config.faults[0].kind, FaultKind::Delay);
        assert_eq!(config.faults[1].probability, Some(0.5));
        assert_eq!(config.fixture, Fixture::shipped());
        let defaults = Cmd::try_parse_from(["sandbox"]).unwrap().args;
        assert_eq!(defaults.addr.to_string(), "127.0.0.1:8080");
        assert!(Cmd::try_parse_from(["sandbox", "--fault", "x:y"]).is_err());
        let missing = Cmd::try_parse_from(["sandbox", "--fixture", "/nonexistent.toml"])
            .unwrap()
            .args
            .config()
            .unwrap_err();
        assert!(
            missing.to_string().contains("/nonexistent.toml"),
            "{missing}"
        );
    }
}
