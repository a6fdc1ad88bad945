# A TLS client with a tiny receive buffer that sends one request and never
# reads (Node cannot set SO_RCVBUF): the server's answer waits in its send
# queue with the client's window closed, which is what the connection
# guard's not-reading rule looks for. Prints "sent" once the request is out,
# then "closed <ms>" when the server has closed the connection (the TCP state
# leaves ESTABLISHED), or "open" after the timeout.
#   python3 small-window-client.py <port> <ca file> <request> <timeout s>
import socket
import ssl
import sys
import time

port, ca, request, timeout = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
# Set before connect, so that the window offered in the handshake is small.
raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
raw.connect(('127.0.0.1', port))
tls = ssl.create_default_context(cafile=ca).wrap_socket(raw, server_hostname='localhost')
tls.sendall(request.encode('latin1'))
print('sent', flush=True)
started = time.monotonic()
TCP_ESTABLISHED = 1
while time.monotonic() - started < timeout:
    state = tls.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]
    if state != TCP_ESTABLISHED:
        print('closed', round((time.monotonic() - started) * 1000), flush=True)
        sys.exit(0)
    time.sleep(0.05)
print('open', flush=True)
