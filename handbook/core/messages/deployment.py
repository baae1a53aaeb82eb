"""The deployment check's wording (handbook/checker/deployment.py): several commands that must connect. Each
entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    "deploy-default": ("{value}（未给 {flag}，取默认值）", "{value} ({flag} not given: the default)"),
    "deploy-unreachable-loopback": (
        "Router 把 {flag} 请求发往 {url}，而第 {server_line} 行的服务监听 {host}：这是回环地址，从任何其他地址都连不上，本机的网卡地址也不行；请给它加 --host {target_host}（或 0.0.0.0）",
        "the router sends {flag} requests to {url}, but the server on line {server_line} listens on {host}, a loopback address that no other address reaches, its own machine's network address included; give it --host {target_host} (or 0.0.0.0)",
    ),
    "deploy-unreachable-host": (
        "Router 把 {flag} 请求发往 {url}，而第 {server_line} 行的服务监听的是 {host}，不是 {target_host}；请让两边写同一个地址（或让服务监听 0.0.0.0）",
        "the router sends {flag} requests to {url}, but the server on line {server_line} listens on {host}, not {target_host}; write the same address on both sides (or have the server listen on 0.0.0.0)",
    ),
    "deploy-port": (
        "Router 把 {flag} 请求发往 {url}，而第 {server_line} 行的服务监听端口 {port}：那个端口上没有服务；请给它加 {fix}",
        "the router sends {flag} requests to {url}, but the server on line {server_line} listens on port {port}, so nothing answers there; give it {fix}",
    ),
    "deploy-role": (
        "Router 把 {flag} 请求发往 {url}，那里监听的却是第 {server_line} 行的 {server_role} 服务，不是 {role} 服务",
        "the router sends {flag} requests to {url}, where the {server_role} server on line {server_line} listens, not a {role} server",
    ),
    "deploy-absent": (
        "Router 把 {flag} 请求发往 {url}，但这段文本里没有监听那里的 {role} 服务",
        "the router sends {flag} requests to {url}, but no {role} server in this text listens there",
    ),
    "deploy-unpaired": (
        "这段文本有 {role} 实例，却没有 {missing} 实例：PD 分离两者缺一不可（--disaggregation-mode prefill 与 decode 各至少一个）",
        "this text has a {role} instance but no {missing} instance: PD disaggregation needs both (at least one of --disaggregation-mode prefill and decode each)",
    ),
    "deploy-bootstrap-router": (
        "Router 为 {url} 给的 bootstrap 端口是 {given}，而第 {server_line} 行的 prefill 服务的 bootstrap 服务监听 {port}（--disaggregation-bootstrap-port）：decode 会连到一个没人监听的端口",
        "the router gives bootstrap port {given} for {url}, but the prefill server on line {server_line} runs its bootstrap server on {port} (--disaggregation-bootstrap-port), so the decode server connects to a port nobody listens on",
    ),
    "deploy-bootstrap-own": (
        "Router 没有为 {url} 给 bootstrap 端口，于是第 {decode_line} 行的 decode 服务用它自己的 --disaggregation-bootstrap-port（{decode_port}）去连 prefill，而第 {prefill_line} 行的 prefill 监听的是 {prefill_port}；请让两边一致，或在 Router 里写 --prefill {url} {prefill_port}",
        "the router gives no bootstrap port for {url}, so the decode server on line {decode_line} connects with its own --disaggregation-bootstrap-port ({decode_port}) while the prefill server on line {prefill_line} listens on {prefill_port}; make them equal, or write --prefill {url} {prefill_port} in the router",
    ),
    "deploy-bootstrap-apart": (
        "第 {decode_line} 行的 decode 服务的 --disaggregation-bootstrap-port 是 {decode_port}，第 {prefill_line} 行的 prefill 是 {prefill_port}：Router 不给 bootstrap 端口时 decode 用自己的值去连 prefill，连不上",
        "the decode server on line {decode_line} has --disaggregation-bootstrap-port {decode_port} and the prefill server on line {prefill_line} {prefill_port}: a router that gives no bootstrap port leaves the decode server connecting with its own, which misses",
    ),
    "deploy-parsers": (
        "PD 模式下 Router 把 decode 服务的输出返回给客户端，第 {prefill_line} 行 prefill 服务上的 {flag} {value} 不作用于客户端收到的内容：请给第 {decode_line} 行的 decode 服务也加上 {flag} {value}",
        "in PD mode the router returns the decode server's output to the client, so {flag} {value} on the prefill server (line {prefill_line}) does not apply to what the client receives; give the decode server on line {decode_line} {flag} {value} too",
    ),
    "deploy-nodes-count": (
        "共用 --dist-init-addr {addr} 的命令（同一个多节点服务的各个节点）的 --nnodes 不一致：{values}",
        "the commands that share --dist-init-addr {addr} (the nodes of one multi-node server) disagree on --nnodes: {values}",
    ),
    "deploy-nodes-rank": (
        "共用 --dist-init-addr {addr} 的两条命令都是 --node-rank {rank}（另一条在第 {first} 行）：每个节点的 rank 必须不同",
        "two commands that share --dist-init-addr {addr} both have --node-rank {rank} (the other on line {first}); each node needs its own rank",
    ),
    "deploy-nodes-flags": (
        "同一个多节点服务（--dist-init-addr {addr}）的各个节点必须给出相同的 {flag}，这里是：{values}（括号里是行号）",
        "the nodes of one multi-node server (--dist-init-addr {addr}) must give the same {flag}; here: {values} (line numbers in brackets)",
    ),
    "deploy-nodes-missing": (
        "--dist-init-addr {addr} 的 {nnodes} 节点服务中，node rank {ranks} 不在这段文本里：在其余每个节点上用各自的 --node-rank 运行同一条命令",
        "node rank {ranks} of the {nnodes}-node server at --dist-init-addr {addr} is not in this text: run the same command on each other node with its own --node-rank",
    ),
}
