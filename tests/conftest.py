import os

from hypothesis import HealthCheck, settings

# numba compiles on first call; the first example of a property test may be slow.
settings.register_profile("sweeplab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "sweeplab"))


import pytest  # noqa: E402

# Tests that take a second or more on the shared 2-core box (a full run's durations, loaded box):
# marked slow here, so that the quick subset (`scripts/test --quick`: not slow, not browser) stays
# under a minute. They still run in the whole suite, which is what CI runs. A new long test carries
# @pytest.mark.slow itself.
SLOW = {
    "test_architecture.py": {
        "test_every_room_has_a_floor", "test_no_import_runs_back_up_the_floors",
        "test_nothing_reaches_into_the_certifier", "test_the_layout_walk_is_written_once",
        "test_the_solver_reads_only_the_ground_floor_and_itself",
    },
    "test_automaton.py": {
        "test_batch_equals_boards_one_by_one", "test_cli_show_prints_every_step_and_draws",
        "test_cli_sweep_json_equals_the_library", "test_kernel_matches_the_rule_as_written",
        "test_player_reads_one_step_of_the_rule_off_a_view",
    },
    "test_bench_optimal.py": {
        "test_one_seed_is_one_strategy_no_better_than_perfect_play",
    },
    "test_board.py": {
        "test_neighbour_table_is_symmetric_and_distinct",
    },
    "test_cli.py": {
        "test_board_prints_the_seeded_board_and_its_3bv", "test_console_script_and_module_run",
        "test_stats_reads_stdin",
    },
    "test_cli_errors.py": {
        "test_a_late_failure_keeps_the_results_already_made", "test_play_with_a_database_under_a_file_is_one_line",
    },
    "test_cli_rules.py": {
        "test_each_rule_works_from_a_fresh_interpreter",
        "test_the_registry_lists_every_rule_and_says_so_when_one_is_unknown",
    },
    "test_cli_setup.py": {
        "test_a_missing_browser_fails_with_one_line_saying_how_to_install_it",
    },
    "test_cycles.py": {
        "test_convergence_blends_two_consecutive_cycle_boards",
        "test_cycle_finders_agree_with_the_exhaustive_analysis", "test_cycles_command_json_and_figures",
        "test_order_of_mines", "test_published_beginner_cycles", "test_published_intermediate_cycles",
        "test_seed_map_matches_the_exhaustive_analysis", "test_survey_over_a_cycle",
    },
    "test_endgame.py": {
        "test_compiled_end_game_counts_what_the_plain_search_counts", "test_compiled_end_game_is_perfect_play",
        "test_end_game_on_expert_positions_matches_the_plain_search",
        "test_strong_plays_the_end_game_perfectly_past_main_s_old_limit",
    },
    "test_fit_ladder_cells.py": {
        "test_a_step_moves_a_group_towards_the_chains_rate",
        "test_cells_alike_share_their_steps_to_the_sides_and_the_click",
        "test_the_chains_and_the_ladders_boards_are_certified_draws",
    },
    "test_formats.py": {
        "test_a_json_array_of_boards_reads_back", "test_mbf_records_in_a_row_round_trip",
        "test_multi_board_files_round_trip_with_their_topology", "test_text_round_trip",
    },
    "test_game.py": {
        "test_cascade_never_opens_a_flagged_cell", "test_replay_reproduces_the_game",
        "test_win_exactly_when_every_safe_cell_is_open",
    },
    "test_influence.py": {
        "test_influence_matches_brute_force",
    },
    "test_lab.py": {
        "test_same_results_whatever_the_backend_or_worker_count",
    },
    "test_noguess.py": {
        "test_a_clump_base_between_whole_numbers_counts_each_mine_next_to_a_cell_as_its_denominator",
        "test_a_long_components_sweep_matches_brute_force",
        "test_a_moved_mine_replayed_from_the_old_log_gets_a_fresh_plays_verdict",
        "test_auto_leaves_rejection_for_the_chain_on_a_large_board",
        "test_boards_alone_at_170_and_200_mines_match_the_long_chains",
        "test_boards_at_130_mines_match_the_rejection_references",
        "test_boards_at_30x24_200_alone_match_the_long_chains",
        "test_certifier_agrees_with_the_project_solver_after_moves_on_dense_boards",
        "test_certifier_matches_brute_force_on_a_torus",
        "test_certifier_matches_brute_force_on_every_layout_it_is_shown", "test_cli_uniformity_reports_and_plots",
        "test_generated_small_boards_are_no_guess_by_brute_force",
        "test_kept_130_mine_references_are_rejection_sampled",
        "test_needs_the_total_flag_matches_brute_force_without_the_total",
        "test_play_moved_reaches_a_fresh_plays_position_from_any_log",
        "test_the_kept_170_mine_chain_references_from_the_repair", "test_the_kept_200_mine_chain_references",
        "test_the_ladder_thins_its_adds_that_leave_fewer_openings", "test_the_ladder_thins_its_adds_that_lower_3bv",
    },
    "test_numba_cache.py": {
        "test_sweeplab_caches_in_its_keyed_directory_and_leaves_numbas_setting_alone",
    },
    "test_optimal.py": {
        "test_every_first_click_matches_each_click_searched_alone",
        "test_the_command_prints_the_fraction_and_the_best_first_click",
        "test_the_result_is_the_same_at_every_image_of_the_click",
        "test_the_rules_lay_every_allowed_layout_equally_often", "test_the_search_agrees_with_brute_force",
    },
    "test_play_api.py": {
        "test_bad_action_explains_itself_and_changes_nothing", "test_bad_new_game_explains_itself",
        "test_best_time_is_the_fastest_win_per_level_and_mode", "test_fuzz_never_500_never_changes_a_game_on_error",
        "test_win_a_known_board",
    },
    "test_play_intrusion.py": {
        "test_hostile_requests_get_no_5xx_and_no_mine_while_games_are_live",
    },
    "test_play_resume.py": {
        "test_hint_reasons_count_columns_and_rows_from_1",
    },
    "test_play_server.py": {
        "test_cli_bad_db_path_is_one_line_and_exit_2", "test_cli_prints_address_serves_and_stops_cleanly",
        "test_sigkill_loses_no_finished_game_and_many_clients_play_at_once",
    },
    "test_play_tui.py": {
        "test_a_game_in_play_goes_on_at_the_next_start", "test_a_timer_tick_after_the_app_closed_is_harmless",
        "test_custom_size_asks_before_throwing_a_game_away_and_shows_records",
        "test_every_cell_state_has_its_own_glyph_without_colour", "test_lose_with_a_chord_and_change_level_and_mode",
        "test_play_with_mouse_and_keyboard_and_file_the_game",
    },
    "test_players.py": {
        "test_an_unavoidable_guess_is_an_optimal_move", "test_certain_moves_never_hit_a_mine",
        "test_endgame_choice_is_optimal_by_plain_recursion", "test_enumerated_layouts_match_brute_force",
        "test_progress_and_expected_clears_match_brute_force", "test_progress_score_matches_brute_force",
        "test_safe_whenever_matches_brute_force", "test_strong_guesses_a_near_safest_undecided_cell",
        "test_two_move_score_matches_brute_force", "test_unavoidable_sets_cannot_be_told_apart_by_any_reveal",
        "test_wide_candidates_are_jsminesweepers_cells_safest_first",
    },
    "test_replays.py": {
        "test_a_truncated_evf_says_so", "test_cli_csv_table_and_analyse",
        "test_cli_errors_are_one_line_with_status_2", "test_click_rules_agree_with_ms_toollib",
        "test_evf_round_trip", "test_garbage_is_a_replay_error_and_the_next_file_still_reads",
        "test_judged_risks_equal_brute_force", "test_pluck_equals_ms_toollib_on_won_games",
    },
    "test_replays_web.py": {
        "test_uploads_of_any_bytes_are_answered_never_500", "test_viewer_plays_the_file_and_marks_judged_clicks",
    },
    "test_rl_vector.py": {
        "test_vector_env_agrees_with_the_game_move_by_move",
    },
    "test_solver_complete.py": {
        "test_exact_python_count_matches", "test_matches_brute_force", "test_trusted_flags_match_brute_force",
        "test_wrong_mine_total_is_refused_or_counted",
    },
    "test_solver_oracle.py": {
        "test_expert_positions_agree_with_ms_toollib", "test_flags_change_nothing_by_default",
        "test_large_components_finish_quickly", "test_numba_and_python_counts_agree_on_expert",
    },
    "test_solver_rules.py": {
        "test_engine_reasons_hold", "test_rules_are_sound",
    },
    "test_stats.py": {
        "test_3bv_agrees_with_ms_toollib_on_1000_boards", "test_3bv_openings_islands_by_definition",
        "test_zini_kernel_matches_the_plain_greedy",
    },
    "test_uniformity.py": {
        "test_compare_matches_a_plain_computation", "test_layout_figures_match_a_plain_count",
    },
    "test_win7.py": {
        "test_placement_matches_the_spec",
    },
    "test_winmine.py": {
        "test_placement_matches_the_spec",
    },
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module, _, name = item.nodeid.partition("::")
        if name.split("[")[0] in SLOW.get(module.removeprefix("tests/"), ()):
            item.add_marker(pytest.mark.slow)
        if "chromium" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)

# The browser the end-to-end tests drive: Debian's chromium, or another binary named in SWEEPLAB_CHROMIUM.
CHROMIUM = os.environ.get("SWEEPLAB_CHROMIUM", "/usr/bin/chromium")
NO_CHROMIUM = (f"{CHROMIUM} is missing: the browser tests drive Debian's chromium; install it with "
               "`apt-get install chromium` as root (scripts/test does), or name another binary in SWEEPLAB_CHROMIUM")


ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def chromium() -> dict:
    """Playwright's launch arguments for the browser; a missing binary fails each browser test with one
    line (never a skip)."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(NO_CHROMIUM, pytrace=False)
    return {"executable_path": CHROMIUM, "args": ARGS}
