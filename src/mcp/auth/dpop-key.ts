import { createHash } from "node:crypto";
import { generateDpopKeyPair } from "@modelcontextprotocol/client";
import type { DpopKeyPair } from "@modelcontextprotocol/client";

/** A DPoP private key as kept in the token store (a P-256 JWK; the file is 0600 like the tokens it binds). */
export interface StoredDpopKey {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  d: string;
}

const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;

/**
 * A new DPoP key pair (the SDK's, ES256) and its private JWK to keep: a DPoP-bound token is only
 * good with the key it was bound to, and toolbridge is a new process every time it runs.
 */
export async function newDpopKey(): Promise<{ keyPair: DpopKeyPair; stored: StoredDpopKey }> {
  const keyPair = await generateDpopKeyPair({ alg: "ES256", extractable: true });
  const { kty, crv, x, y, d } = await crypto.subtle.exportKey("jwk", keyPair.privateKey);
  return { keyPair, stored: { kty: kty as "EC", crv: crv as "P-256", x: x ?? "", y: y ?? "", d: d ?? "" } };
}

/** The key pair of a kept JWK, the private half not extractable again. */
export async function loadDpopKey(stored: StoredDpopKey): Promise<DpopKeyPair> {
  const publicJwk = { kty: stored.kty, crv: stored.crv, x: stored.x, y: stored.y };
  const [privateKey, publicKey] = await Promise.all([
    crypto.subtle.importKey("jwk", stored, ES256, false, ["sign"]),
    crypto.subtle.importKey("jwk", publicJwk, ES256, true, ["verify"]),
  ]);
  // RFC 7638: the SHA-256 of the required members, in lexicographic order, with no whitespace.
  const thumbprint = createHash("sha256").update(JSON.stringify({ crv: stored.crv, kty: stored.kty, x: stored.x, y: stored.y })).digest("base64url");
  return { privateKey, publicKey, publicJwk, thumbprint, alg: "ES256" };
}
