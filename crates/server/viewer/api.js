// Talking to cairn's REST API under /v1: the token from this tab's session storage, JSON in and
// out, and the API's errors as `ApiError` (status, code, field and the API's own message).

export const TOKEN_KEY = "cairn.token";

/** An answer of the API that was not a success, with its status and JSON error. */
export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `the server answered ${status}`);
    this.status = status;
    this.code = error?.code;
    this.field = error?.field;
  }
}

export function authorization() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * `method path` with an optional JSON body; the JSON answer, or an ApiError. Every POST, PUT
 * and PATCH says it carries JSON, body or not: the server refuses any other (a web page on
 * another site could send those).
 */
export async function call(method, path, body) {
  const headers = authorization();
  const init = { method, headers };
  if (body !== undefined || ["POST", "PUT", "PATCH"].includes(method)) {
    headers["Content-Type"] = "application/json";
  }
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data?.error);
  return data;
}

/** `/v1/...?query` from an object, leaving out empty values. */
export function path(base, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "" && value !== false) {
      params.set(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `${base}?${text}` : base;
}
