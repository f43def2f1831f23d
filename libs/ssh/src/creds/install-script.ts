/**
 * The built-in install script of dynamic roles (a role's `install_script` replaces it). The
 * engine uploads it with the public key and runs it on the host as the admin user:
 *
 *   <script> install|uninstall <public key file> <authorized_keys file>
 *
 * It removes every line of the key file from authorized_keys and, for install, appends it; a
 * lock serialises concurrent runs. Commands go through sudo unless the admin user can write the
 * file itself (the usual case is another user's ~/.ssh/authorized_keys).
 */
export const DEFAULT_INSTALL_SCRIPT = `#!/bin/bash
# Coffer SSH engine: install or uninstall a public key in an authorized_keys file.
#   $1  install | uninstall
#   $2  file holding the public key line (removed when done)
#   $3  absolute path of the authorized_keys file
set -e
OPTION="$1"
KEY_FILE="$2"
AUTH_KEYS="$3"
TEMP_FILE="$(mktemp)"
cleanup() { rm -f "$KEY_FILE" "$TEMP_FILE"; }
trap cleanup EXIT
if [ "$OPTION" != "install" ] && [ "$OPTION" != "uninstall" ]; then
  exit 1
fi
SUDO=""
if [ ! -w "$(dirname "$AUTH_KEYS")" ] && [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
(
  flock --timeout 10 200
  $SUDO mkdir -p "$(dirname "$AUTH_KEYS")"
  $SUDO touch "$AUTH_KEYS"
  # grep's status is ignored: if it fails, every line goes (fails closed, never open)
  $SUDO grep -vxFf "$KEY_FILE" "$AUTH_KEYS" > "$TEMP_FILE" || true
  if [ "$OPTION" = "install" ]; then cat "$KEY_FILE" >> "$TEMP_FILE"; fi
  cat "$TEMP_FILE" | $SUDO tee "$AUTH_KEYS" > /dev/null
) 200> "/tmp/coffer-ssh-$(printf '%s' "$AUTH_KEYS" | md5sum | cut -c1-16).lock"
`;

/** Where a user's authorized_keys lives (Vault's convention: /root or /home/<user>). */
export function authorizedKeysPath(username: string): string {
  return username === 'root' ? '/root/.ssh/authorized_keys' : `/home/${username}/.ssh/authorized_keys`;
}
