# Prints where the button LABEL of the notification whose text holds SUMMARY is on screen ("X Y"), found
# through the accessibility bus; waits up to 5 s for it. Usage: atspi-button.py SUMMARY LABEL
import sys, time
import pyatspi

summary, label = sys.argv[1], sys.argv[2]

def texts(node, depth=0):
    found = []
    try:
        if node.getRoleName() == "label":
            found.append(node.name)
        for i in range(node.childCount if depth < 12 else 0):
            found += texts(node.getChildAtIndex(i), depth + 1)
    except Exception:
        pass
    return found

def buttons(node, depth=0):
    try:
        if node.getRoleName() == "push button" and node.name == label:
            yield node
        for i in range(node.childCount if depth < 12 else 0):
            yield from buttons(node.getChildAtIndex(i), depth + 1)
    except Exception:
        return

deadline = time.time() + 5
while time.time() < deadline:
    for app in pyatspi.Registry.getDesktop(0):
        for i in range(app.childCount):
            window = app.getChildAtIndex(i)
            if not any(summary in text for text in texts(window)):
                continue
            for button in buttons(window):
                box = button.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                print(box.x + box.width // 2, box.y + box.height // 2)
                sys.exit(0)
    time.sleep(0.2)
sys.exit(1)
