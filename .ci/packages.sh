#!/usr/bin/env bash
# The one list of Debian packages paydesk's tests need, and the function that installs those a
# machine lacks. Sourced by .ci/run and .ci/test, so the README's test command works on a fresh
# Debian machine as it stands:
#   gnome-keyring dbus-x11 libsecret-tools   the keyring test (a real Secret Service)
#   dunst xvfb                               the notification test (a real daemon under Xvfb)
#   xdotool xclip imagemagick libxfixes3     the clipboard test (the app under Xvfb)
#   zenity                                   the file-dialog test
#   poppler-utils                            the slip tests read PDFs back
#   postgresql                               the shop tests (a private cluster per test binary)
#   sqlite3                                  the tests that edit a data file as a clerk could
#   python3-aiosmtpd                         the mail tests (a real SMTP server, tests/support/smtp.rs)
#   desktop-file-utils appstream dpkg-dev curl   packaging checks and the .deb (.ci/run)
apt_packages=(gnome-keyring dbus-x11 libsecret-tools desktop-file-utils appstream curl dpkg-dev xvfb xdotool poppler-utils dunst xclip imagemagick libxfixes3 sqlite3 zenity postgresql python3-aiosmtpd)

# Installs the packages of `apt_packages` that are missing: as root with apt-get, else through
# sudo when it is there; otherwise says what to install and fails.
install_missing_packages() {
    local missing=() p
    for p in "${apt_packages[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local run=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            run=(sudo)
        else
            echo "missing Debian packages: ${missing[*]} (apt-get install them as root)" >&2
            return 2
        fi
    fi
    echo "== installing ${missing[*]}"
    "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${run[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
}
