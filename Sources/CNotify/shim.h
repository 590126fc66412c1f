#include <libnotify/notify.h>

/// Sets the id a notification replaces (`replaces_id`): g_object_set is variadic, which Swift cannot call.
static inline void watcher_notification_set_id(NotifyNotification *notification, gint id) {
  g_object_set(G_OBJECT(notification), "id", id, NULL);
}

/// The id the server gave a shown notification.
static inline gint watcher_notification_get_id(NotifyNotification *notification) {
  gint id = 0;
  g_object_get(G_OBJECT(notification), "id", &id, NULL);
  return id;
}
