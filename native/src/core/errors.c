/* errors.c: the calling thread's last error message.
 *
 * Each thread has its own message so that Workers calling at once never read each
 * other's errors. pt_error() replaces it; pt_error_prefix() adds context in front of a
 * message a driver already wrote, so the text reads outermost-first.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "core.h"

#define PT_ERR_CAP 1024

static _Thread_local char last_error[PT_ERR_CAP];
static _Thread_local int last_len;

int pt_error(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(last_error, PT_ERR_CAP, fmt ? fmt : "(no message)", ap);
  va_end(ap);
  last_len = n < 0 ? 0 : (n >= PT_ERR_CAP ? PT_ERR_CAP - 1 : n);
  return status;
}

int pt_error_prefix(int status, const char *fmt, ...) {
  char prefix[256], old[PT_ERR_CAP];
  memcpy(old, last_error, (size_t)last_len);
  old[last_len] = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  return pt_error(status, "%s: %s", prefix, last_len ? old : "failed without a message");
}

PT_API int32_t pt_last_error(uint8_t *buf, int32_t cap) {
  if (buf && cap > 0) memcpy(buf, last_error, (size_t)(last_len < cap ? last_len : cap));
  return last_len;
}

int pt_outcome_settle(pt_outcome *o, int st) {
  if (o->status >= 0 && st == PT_OK) o->status = 1;
  else if (o->status >= 0) {
    char msg[1024];
    int n = pt_last_error((uint8_t *)msg, (int32_t)sizeof msg - 1);
    msg[n < 0 ? 0 : n < (int)sizeof msg - 1 ? n : (int)sizeof msg - 1] = 0;
    free(o->msg);
    if ((o->msg = malloc(strlen(msg) + 1))) strcpy(o->msg, msg);
    o->status = st;
  }
  return o->status < 0 ? pt_outcome_get(o) : PT_OK;
}

int pt_outcome_get(const pt_outcome *o) {
  if (o->status < 0) pt_error(o->status, "%s", o->msg ? o->msg : "work before this fence failed");
  return o->status;
}

int pt_outcome_take(pt_outcome *o) {
  int st = o->status < 0 ? pt_outcome_get(o) : PT_OK;
  pt_outcome_free(o);
  o->status = 0;
  return st;
}

void pt_outcome_free(pt_outcome *o) {
  free(o->msg);
  o->msg = NULL;
}
