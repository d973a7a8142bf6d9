#!/bin/sh
# Create the files docker/compose.yaml mounts as secrets, once, readable by their owner only.
# Keep copies somewhere safe: losing the signing key ends the log's chain of trust, losing the
# HMAC key breaks the receipts' keyed digests (docs/keys.md).
set -eu
dir="$(dirname "$0")/secrets"
mkdir -p "$dir"
chmod 700 "$dir"
umask 077
[ -e "$dir/db_password" ] || openssl rand -hex 24 > "$dir/db_password"
[ -e "$dir/signing_key.pem" ] || openssl genpkey -algorithm ed25519 -out "$dir/signing_key.pem"
[ -e "$dir/hmac_key" ] || openssl rand -hex 32 > "$dir/hmac_key"
# The services run as uid 10001 and read these files as mounted (no copy is made).
if [ "$(id -u)" = 0 ]; then
    chown 10001:10001 "$dir/db_password" "$dir/signing_key.pem" "$dir/hmac_key"
else
    echo "as root, make them readable by the service: chown 10001:10001 $dir/*"
fi
echo "secrets in $dir: db_password signing_key.pem hmac_key"
