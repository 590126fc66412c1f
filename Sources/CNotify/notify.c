// SPDX-License-Identifier: MIT
// libnotify's functions (and GLib's, found through it), resolved from libnotify.so.4 when the first one is
// called: only a notification needs them, and linking them costs every command start-up time.
#include "CNotify.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef void (*object_set_fn)(gpointer object, const gchar *first_property, ...);

/* Every function used: X(return type, name, parameters). */
#define FUNCTIONS(X)                                                                                          \
  X(gboolean, notify_init, (const char *))                                                                    \
  X(GList *, notify_get_server_caps, (void))                                                                  \
  X(gboolean, notify_get_server_info, (char **, char **, char **, char **))                                   \
  X(NotifyNotification *, notify_notification_new, (const char *, const char *, const char *))               \
  X(gboolean, notify_notification_show, (NotifyNotification *, GError **))                                    \
  X(void, notify_notification_set_timeout, (NotifyNotification *, gint))                                      \
  X(void, notify_notification_set_category, (NotifyNotification *, const char *))                             \
  X(void, notify_notification_set_urgency, (NotifyNotification *, NotifyUrgency))                             \
  X(void, notify_notification_set_hint_string, (NotifyNotification *, const char *, const char *))           \
  X(void, notify_notification_set_app_name, (NotifyNotification *, const char *))                             \
  X(void, notify_notification_add_action,                                                                     \
    (NotifyNotification *, const char *, const char *, NotifyActionCallback, gpointer, GFreeFunc))            \
  X(void, g_object_unref, (gpointer))                                                                         \
  X(gulong, g_signal_connect_data, (gpointer, const gchar *, GCallback, gpointer, GClosureNotify, GConnectFlags)) \
  X(GMainLoop *, g_main_loop_new, (GMainContext *, gboolean))                                                 \
  X(void, g_main_loop_run, (GMainLoop *))                                                                     \
  X(void, g_free, (gpointer))                                                                                 \
  X(void, g_error_free, (GError *))                                                                           \
  X(void, g_list_free_full, (GList *, GFreeFunc))

#define POINTER(type, name, params) static type(*real_##name) params;
FUNCTIONS(POINTER)
static object_set_fn real_g_object_set, real_g_object_get;
static gboolean loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *problem;

static void load(void) {
  void *library = dlopen("libnotify.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    problem = dlerror();
    return;
  }
  gboolean complete = 1;
#define RESOLVE(type, name, params) \
  if (!(real_##name = (type(*) params)dlsym(library, #name))) complete = 0;
  FUNCTIONS(RESOLVE)
  if (!(real_g_object_set = (object_set_fn)dlsym(library, "g_object_set"))) complete = 0;
  if (!(real_g_object_get = (object_set_fn)dlsym(library, "g_object_get"))) complete = 0;
  loaded = complete;
}

gboolean watcher_notify_available(void) {
  pthread_once(&once, load);
  return loaded;
}

const char *watcher_notify_problem(void) {
  pthread_once(&once, load);
  return loaded ? NULL : (problem ? problem : "libnotify.so.4 lacks a function watcher calls");
}

/* The stubs: load once; without the library, do nothing and return 0 or NULL. */
#define CALL(name, args, none)             \
  {                                        \
    if (!watcher_notify_available()) none; \
    return real_##name args;               \
  }
#define NONE_VALUE return 0
#define NONE_VOID return

gboolean notify_init(const char *app_name) CALL(notify_init, (app_name), NONE_VALUE)
GList *notify_get_server_caps(void) CALL(notify_get_server_caps, (), NONE_VALUE)
gboolean notify_get_server_info(char **name, char **vendor, char **version, char **spec)
  CALL(notify_get_server_info, (name, vendor, version, spec), NONE_VALUE)
NotifyNotification *notify_notification_new(const char *summary, const char *body, const char *icon)
  CALL(notify_notification_new, (summary, body, icon), NONE_VALUE)
gboolean notify_notification_show(NotifyNotification *n, GError **error)
  CALL(notify_notification_show, (n, error), NONE_VALUE)
void notify_notification_set_timeout(NotifyNotification *n, gint timeout)
  CALL(notify_notification_set_timeout, (n, timeout), NONE_VOID)
void notify_notification_set_category(NotifyNotification *n, const char *category)
  CALL(notify_notification_set_category, (n, category), NONE_VOID)
void notify_notification_set_urgency(NotifyNotification *n, NotifyUrgency urgency)
  CALL(notify_notification_set_urgency, (n, urgency), NONE_VOID)
void notify_notification_set_hint_string(NotifyNotification *n, const char *key, const char *value)
  CALL(notify_notification_set_hint_string, (n, key, value), NONE_VOID)
void notify_notification_set_app_name(NotifyNotification *n, const char *app_name)
  CALL(notify_notification_set_app_name, (n, app_name), NONE_VOID)
void notify_notification_add_action(NotifyNotification *n, const char *action, const char *label,
                                    NotifyActionCallback callback, gpointer data, GFreeFunc free_func)
  CALL(notify_notification_add_action, (n, action, label, callback, data, free_func), NONE_VOID)
void g_object_unref(gpointer object) CALL(g_object_unref, (object), NONE_VOID)
gulong g_signal_connect_data(gpointer instance, const gchar *signal, GCallback handler, gpointer data,
                             GClosureNotify destroy, GConnectFlags flags)
  CALL(g_signal_connect_data, (instance, signal, handler, data, destroy, flags), NONE_VALUE)
GMainLoop *g_main_loop_new(GMainContext *context, gboolean running) CALL(g_main_loop_new, (context, running), NONE_VALUE)
void g_main_loop_run(GMainLoop *loop) CALL(g_main_loop_run, (loop), NONE_VOID)
void g_free(gpointer mem) CALL(g_free, (mem), NONE_VOID)
void g_error_free(GError *error) CALL(g_error_free, (error), NONE_VOID)
void g_list_free_full(GList *list, GFreeFunc free_func) CALL(g_list_free_full, (list, free_func), NONE_VOID)

void watcher_notification_set_id(NotifyNotification *notification, gint id) {
  if (watcher_notify_available()) real_g_object_set(notification, "id", id, NULL);
}

gint watcher_notification_get_id(NotifyNotification *notification) {
  gint id = 0;
  if (watcher_notify_available()) real_g_object_get(notification, "id", &id, NULL);
  return id;
}
