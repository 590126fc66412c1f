// SPDX-License-Identifier: MIT
// The part of libnotify (and of GLib under it) that watcher calls, declared here as libnotify 0.7 and
// GLib 2 define it: the functions are resolved from libnotify.so.4 when first used (notify.c), so the binary
// neither links libnotify's fifteen libraries at start-up nor needs GLib's headers (whose pkg-config flags
// SwiftPM refuses). Pointers to the structs below are only passed back to the library, never read, except
// GError's message and GList's links, whose layout is GLib's.
#include <stdint.h>

/* Hidden: the stand-ins below share GLib's and libnotify's names, and must never be what those libraries bind
   their own calls to (the binary exports nothing either: contrib/link/watcher.map). */
#pragma GCC visibility push(hidden)

typedef int gboolean;
typedef int gint;
typedef char gchar;
typedef void *gpointer;
typedef unsigned long gulong;
typedef uint32_t GQuark;
typedef void (*GCallback)(void);
typedef void (*GFreeFunc)(gpointer data);

typedef struct _GError {
  GQuark domain;
  gint code;
  gchar *message;
} GError;

typedef struct _GList {
  gpointer data;
  struct _GList *next;
  struct _GList *prev;
} GList;

typedef struct _GClosure {
  int opaque;
} GClosure;
typedef void (*GClosureNotify)(gpointer data, GClosure *closure);
typedef enum { G_CONNECT_DEFAULT = 0, G_CONNECT_AFTER = 1, G_CONNECT_SWAPPED = 2 } GConnectFlags;
typedef struct _GMainLoop GMainLoop;
typedef struct _GMainContext GMainContext;

typedef struct _NotifyNotification {
  int opaque;
} NotifyNotification;
typedef enum { NOTIFY_URGENCY_LOW, NOTIFY_URGENCY_NORMAL, NOTIFY_URGENCY_CRITICAL } NotifyUrgency;
typedef void (*NotifyActionCallback)(NotifyNotification *notification, char *action, gpointer user_data);
#define NOTIFY_EXPIRES_NEVER 0

/* Whether libnotify.so.4 could be loaded; every function below does nothing (and returns 0 or NULL)
   without it, so a missing library reads as "libnotify could not start". */
gboolean watcher_notify_available(void);
/* Why not, in the loader's words (NULL when it could). */
const char *watcher_notify_problem(void);

gboolean notify_init(const char *app_name);
GList *notify_get_server_caps(void);
gboolean notify_get_server_info(char **ret_name, char **ret_vendor, char **ret_version, char **ret_spec_version);
NotifyNotification *notify_notification_new(const char *summary, const char *body, const char *icon);
gboolean notify_notification_show(NotifyNotification *notification, GError **error);
void notify_notification_set_timeout(NotifyNotification *notification, gint timeout);
void notify_notification_set_category(NotifyNotification *notification, const char *category);
void notify_notification_set_urgency(NotifyNotification *notification, NotifyUrgency urgency);
void notify_notification_set_hint_string(NotifyNotification *notification, const char *key, const char *value);
void notify_notification_set_app_name(NotifyNotification *notification, const char *app_name);
void notify_notification_add_action(NotifyNotification *notification, const char *action, const char *label,
                                    NotifyActionCallback callback, gpointer user_data, GFreeFunc free_func);

/* Sets the id a notification replaces (`replaces_id`): g_object_set is variadic, which Swift cannot call. */
void watcher_notification_set_id(NotifyNotification *notification, gint id);
/* The id the server gave a shown notification. */
gint watcher_notification_get_id(NotifyNotification *notification);

void g_object_unref(gpointer object);
gulong g_signal_connect_data(gpointer instance, const gchar *detailed_signal, GCallback c_handler, gpointer data,
                             GClosureNotify destroy_data, GConnectFlags connect_flags);
GMainLoop *g_main_loop_new(GMainContext *context, gboolean is_running);
void g_main_loop_run(GMainLoop *loop);
void g_free(gpointer mem);
void g_error_free(GError *error);
void g_list_free_full(GList *list, GFreeFunc free_func);

#pragma GCC visibility pop
