//! Raw HTTP/1.1 over a TCP socket, for the servers that answer the way a broken or hostile
//! server does (the bytes are exactly what the test writes).

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;

/// Reads one request, its head and its body (`Content-Length` bytes); `None` when the client
/// went away first.
pub fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}
