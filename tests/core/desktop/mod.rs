//! The desktop's real parts: the keyring (Secret Service) and the notification daemon. Their
//! tests are ignored here and run by `.ci/keyring-test.sh` and `.ci/notify-test.sh`, which
//! start the daemons.

mod keyring;
mod notify;
