#!/usr/bin/env bash
# Builds the Debian package target/debian/paydesk_<version>-1_<arch>.deb from a checkout:
# the release binary, its man page (generated from the clap definition by `paydesk man`),
# then `cargo deb` with the metadata in Cargo.toml. The README's install section runs this,
# and so does CI (.ci/package.sh), which then installs, runs and removes the package.
set -euo pipefail
cd "$(dirname "$0")/../.."

CARGO_DEB_VERSION=3.8.0
if ! cargo deb --version 2>/dev/null | grep -qx "cargo-deb $CARGO_DEB_VERSION"; then
  cargo install cargo-deb --version "$CARGO_DEB_VERSION" --locked
fi

cargo build --release --locked
mkdir -p target/man
target/release/paydesk man > target/man/paydesk.1
cargo deb --no-build --locked
