/** The texts of the security-event route, read by its handler, schema and OpenAPI document. */
export const PAGE_SIZE_RULE = '每页条数须为1到100的整数';
export const CURSOR_MALFORMED = '游标无效或已被修改,请使用上一页的X-Next-Cursor';
