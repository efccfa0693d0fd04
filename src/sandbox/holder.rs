//! Who serves a sandbox state file, as its lock file (`sandbox::lock`) says, and that file's
//! text. Below `error` and `lock`, which both name it: a refused start says who holds the lock.

/// Who serves a state file, as its lock file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The loopback port it serves on.
    pub port: u16,
    /// Its process id.
    pub pid: u32,
    /// The instance name its admin summary (`GET /sandbox`) gives.
    pub instance: String,
}

impl Holder {
    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Reads a lock file's text; `None` unless it names a port, a process and an instance.
    pub(super) fn parse(text: &str) -> Option<Holder> {
        let mut port = None;
        let mut pid = None;
        let mut instance = None;
        for line in text.lines() {
            match line.split_once('=') {
                Some(("port", v)) => port = v.trim().parse().ok(),
                Some(("pid", v)) => pid = v.trim().parse().ok(),
                Some(("instance", v)) => instance = Some(v.trim().to_owned()),
                _ => {}
            }
        }
        Some(Holder {
            port: port?,
            pid: pid?,
            instance: instance.filter(|i| !i.is_empty())?,
        })
    }

    /// The lock file's text naming this holder.
    pub(super) fn text(&self) -> String {
        format!(
            "# paydesk sandbox: the process serving the state file beside this one\npid={}\nport={}\ninstance={}\n",
            self.pid, self.port, self.instance
        )
    }
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {} on {}", self.pid, self.base_url())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_is_read_only_from_a_complete_text() {
        assert_eq!(Holder::parse(""), None);
        assert_eq!(Holder::parse("pid=1\nport=2\n"), None);
        assert_eq!(Holder::parse("pid=1\nport=99999\ninstance=x\n"), None);
        let h = Holder::parse("# c\npid=12\nport=47110\ninstance=ab\n").expect("complete");
        assert_eq!(h.base_url(), "http://127.0.0.1:47110");
        assert_eq!(Holder::parse(&h.text()), Some(h));
    }
}
