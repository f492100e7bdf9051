# A `lava-test-case` line per result record of the probe: "NAME MEDIAN UNIT".
# NAME: benchmark, parameter values, cpu, mode, metric (LAVA keeps 100 characters of it).
# POSIX awk (busybox): the probe writes compact JSON, its fields in a fixed order.
function field(name,    s) {
    if (!match($0, "\"" name "\":\"[^\"]*\"")) return ""
    s = substr($0, RSTART + length(name) + 4, RLENGTH - length(name) - 5)
    return s
}
function number(name) {
    if (!match($0, "\"" name "\":-?[0-9][0-9.eE+-]*")) return ""
    return substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 3)
}
/^\{"type":"result"/ {
    params = ""
    if (match($0, /"params":\{[^}]*\}/)) {
        params = substr($0, RSTART + 10, RLENGTH - 11)
        gsub(/"[^"]*":/, "", params)
        gsub(/"/, "", params)
        gsub(/,/, "_", params)
    }
    cpu = number("cpu")
    median = ""
    if (match($0, /"summary":\{[^}]*\}/)) {
        summary = substr($0, RSTART, RLENGTH)
        if (match(summary, /"median":-?[0-9][0-9.eE+-]*/))
            median = substr(summary, RSTART + 9, RLENGTH - 9)
    }
    if (median == "") next
    name = field("benchmark") "_" params "_cpu" (cpu == "" ? "all" : cpu) "_" field("mode") "_" field("metric")
    gsub(/[^A-Za-z0-9._-]/, "-", name)
    unit = field("unit")
    gsub(/[^A-Za-z0-9._\/%-]/, "-", unit)
    print substr(name, 1, 100), median, (unit == "" ? "none" : unit)
}
