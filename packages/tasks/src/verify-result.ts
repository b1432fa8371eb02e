// What every bundled site's state verifier answers (the body of its `/__owrl/verify` endpoint).

export interface VerifyResult {
  ok: boolean;
  detail: string;
}
