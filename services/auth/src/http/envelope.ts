/** `{ code, message, data? }`: every answer of this service, with the HTTP status as `code`. */
interface MessageBody<T = unknown> {
  code: number;
  message: string;
  data?: T;
}

export function messageBody<T>(code: number, message: string, data?: T): MessageBody<T> {
  return data === undefined ? { code, message } : { code, message, data };
}
