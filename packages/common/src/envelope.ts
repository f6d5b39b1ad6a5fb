/**
 * The body shapes the two specs use. Auth and the platform's data routes answer
 * `{ code, message, data? }`; the platform's status changes answer `{ code, msg }`;
 * the platform's storage failures add an `error` text.
 */
export interface MessageBody<T = unknown> {
  code: number;
  message: string;
  data?: T;
  error?: string;
}

export interface MsgBody {
  code: number;
  msg: string;
  error?: string;
}

export function messageBody<T>(code: number, message: string, data?: T): MessageBody<T> {
  return data === undefined ? { code, message } : { code, message, data };
}

export function messageError(code: number, message: string, error: string): MessageBody {
  return { code, message, error };
}

export function msgBody(code: number, msg: string, error?: string): MsgBody {
  return error === undefined ? { code, msg } : { code, msg, error };
}
