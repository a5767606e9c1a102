import { z } from "zod";

/**
 * `oauth` of a remote server. Everything is optional: a server that asks for a login is
 * discovered from its own metadata, and toolbridge registers itself where the
 * authorization server allows it. These settings are for servers that do not.
 */
export const OAuthConfigSchema = z.strictObject({
  clientId: z.string().min(1).optional().describe("A client registered by hand with the authorization server (no dynamic registration then)."),
  clientSecret: z.string().min(1).optional().describe("Its secret, for a confidential client; prefer `${VAR}`."),
  scopes: z.array(z.string().min(1)).optional().describe("Scopes to ask for when the server names none."),
  redirectPort: z.number().int().min(1).max(65535).optional().describe("The loopback port of the redirect (http://127.0.0.1:PORT/callback), for a client registered with a fixed one."),
  clientMetadataUrl: z.url({ protocol: /^https$/ }).optional().describe("An https URL serving this client's metadata document, used as the client id where the server accepts one."),
  grantType: z
    .enum(["authorization_code", "client_credentials", "jwt_bearer"])
    .optional()
    .describe(
      '"client_credentials" for a machine without a browser (needs clientId and clientSecret or privateKey); "jwt_bearer" for a workload that proves who it is with a token its platform gives it (workload identity federation, RFC 7523: needs clientId and assertion or assertionFile).',
    ),
  assertion: z.string().min(1).optional().describe("The workload's identity token (a JWT) for \"jwt_bearer\"; prefer `${VAR}`."),
  assertionFile: z.string().min(1).optional().describe("A file holding that token, read again for every token request (platforms rotate it, e.g. Kubernetes)."),
  issuer: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "The issuer of the authorization server the configured client belongs to: clientId, its secret or key and the assertion are sent to no other. Without it, to the one the server names.",
    ),
  dpop: z.boolean().optional().describe("DPoP (RFC 9449): bind tokens to a key of this client. Default: when the authorization server offers it."),
  privateKey: z.string().min(1).optional().describe("A PEM private key: the client authenticates with a signed JWT (private_key_jwt) instead of a secret."),
  signingAlgorithm: z.string().min(1).optional().describe("The JWT's algorithm with privateKey; default RS256."),
});

export type OAuthConfig = z.infer<typeof OAuthConfigSchema>;
