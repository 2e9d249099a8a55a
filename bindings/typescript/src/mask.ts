// The effective mask: whether a consumer must treat the reward as not measuring the policy.

/** A mask field holds a non-boolean: the document is invalid and its mask must not be guessed. */
export class MaskTypeError extends TypeError {
  override readonly name = "MaskTypeError";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function flag(holder: Record<string, unknown>, where: string): boolean {
  if (!Object.hasOwn(holder, "mask_sample")) return false;
  const value = holder["mask_sample"];
  if (typeof value !== "boolean") {
    throw new MaskTypeError(`${where} is ${JSON.stringify(value) ?? String(value)}, not a boolean; refuse the document rather than guess`);
  }
  return value;
}

/**
 * `mask_sample` OR the legacy `instance_config.mask_sample` (read until contract 2.0); absent means false.
 * A present non-boolean (null included) throws MaskTypeError: coercing "false" to a boolean gives true.
 */
export function effectiveMask(document: Readonly<Record<string, unknown>>): boolean {
  const top = flag(document, "mask_sample");
  const config = document["instance_config"];
  const legacy = isObject(config) ? flag(config, "instance_config.mask_sample") : false;
  return top || legacy;
}
