# bash completion for gesturectl, the command-line client of gestured.
# Commands and options are read from gesturectl's own --help output, so commands added to gesturectl are
# completed without changing this file.

_gesturectl_commands() {
    gesturectl --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

# The options of one command, and which of them take a value ("--socket PATH", "-o FILE" lines in its --help).
_gesturectl_options() {
    gesturectl "$1" --help 2>/dev/null | awk '/^ +--?[a-zA-Z]/ { print $1 }'
}
_gesturectl_takes_value() {
    gesturectl "$1" --help 2>/dev/null | awk -v o="$2" '$1 == o && $2 ~ /^[A-Z]+$/ { found = 1 } END { exit !found }'
}

# Completes the last item of a comma-separated list from the words given, leaving out those already in it.
_gesturectl_list() {
    local cur=$1 head="" item
    shift
    case $cur in *,*) head=${cur%,*},; cur=${cur##*,} ;; esac
    COMPREPLY=()
    for item in "$@"; do
        [[ $item == "$cur"* && ,$head != *,$item,* ]] && COMPREPLY+=("$head$item")
    done
    compopt -o nospace 2>/dev/null
}

_gesturectl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac
    done
    COMPREPLY=()
    if [ -z "$cmd" ]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_gesturectl_commands) --help --version" -- "$cur")
        return
    fi
    if [ "$prev" != "$cmd" ] && [[ $prev == -* ]] && _gesturectl_takes_value "$cmd" "$prev"; then
        case $cmd:$prev in
            *:--kinds) _gesturectl_list "$cur" edge-swipe pan pinch tap hold ;;
            tune:--edges) _gesturectl_list "$cur" left right top bottom ;;   # sides only
            tune:--swipes | tune:--taps) ;;
            *:--edges) _gesturectl_list "$cur" left right top bottom top-left top-right bottom-left bottom-right ;;
            *:--fingers | *:--count) ;;
            lisgd:-[gtTrmwhso]) ;;   # a binding or a number: nothing to offer
            orientation:--device | session:--device | exclude:--device)
                mapfile -t COMPREPLY < <(compgen -W "$(gesturectl devices 2>/dev/null | cut -f1)" -- "$cur") ;;
            lisgd:-d | monitor:--device | explain:--device | tune:--device | plot:--device)   # the daemon's ids, or a file (a node, a symlink, a description for a recording)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -W "$(gesturectl devices 2>/dev/null | cut -f1)" -- "$cur"; compgen -f -- "$cur") ;;
            orientation:--output | session:--output)   # the connectors' names, as wlroots compositors name outputs
                mapfile -t COMPREPLY < <(compgen -W "$(ls /sys/class/drm 2>/dev/null | sed -n 's/^card[0-9]*-//p')" -- "$cur") ;;
            *)  compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        esac
        return
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_gesturectl_options "$cmd") --help" -- "$cur")
    elif [ "$cmd" = exclude ]; then
        mapfile -t COMPREPLY < <(compgen -W "left right top bottom top-left top-right bottom-left bottom-right" -- "$cur")
    elif [ "$cmd" = focus ]; then
        :   # an app_id: nothing to offer
    elif [ "$cmd" = orientation ]; then
        # its ANGLE, unless it follows the compositor
        [[ " ${COMP_WORDS[*]} " == *" --follow "* ]] || mapfile -t COMPREPLY < <(compgen -W "0 90 180 270" -- "$cur")
    elif gesturectl "$cmd" --help 2>/dev/null | awk 'NR == 1 { exit !($NF ~ /^[A-Z]+$/) }'; then
        # A command whose usage line ends in an argument (replay's RECORDING) takes a file.
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}

complete -F _gesturectl gesturectl
