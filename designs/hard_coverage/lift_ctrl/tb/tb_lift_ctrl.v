`timescale 1ns/1ps
// Self-checking testbench for lift_ctrl. A model is stepped at each rising edge and every
// output is compared each cycle. The directed part reaches every functional bin of
// coverage.yaml: a long idle wait at the lobby, a non-stop run from the lobby to the top,
// a return to the lobby after 32 idle cycles (reversing at the top), trips passing two,
// one and three floors with reversals between floors, a call where the lift stands, a
// door blocked three times and then nudged shut; then 6000 cycles of random calls (sparse
// and dense) and door blocks, with idle stretches and a few resets.
module tb_lift_ctrl;
    reg        clk = 1'b0;
    reg        rst;
    reg  [7:0] call;
    reg        door_block;
    wire [1:0] state, move_cnt, reopen_cnt;
    wire [2:0] floor, door_timer, passed;
    wire       dir, nudge, homing, door_open;
    wire [7:0] pending;
    wire [4:0] idle_cnt;

    lift_ctrl dut (.clk(clk), .rst(rst), .call(call), .door_block(door_block), .state(state), .floor(floor),
                   .dir(dir), .pending(pending), .move_cnt(move_cnt), .door_timer(door_timer),
                   .reopen_cnt(reopen_cnt), .nudge(nudge), .passed(passed), .idle_cnt(idle_cnt),
                   .homing(homing), .door_open(door_open));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    // model: state 0 idle, 1 move, 2 open, 3 close
    integer m_state, m_floor, m_dir, m_pend, m_move, m_timer, m_reopen, m_nudge, m_passed, m_idle, m_home;
    integer errors, n, k, n_stops, n_homes, n_nudges, n_express;
    integer density;

    task check;
        begin
            if (state !== m_state[1:0] || floor !== m_floor[2:0] || dir !== m_dir[0] || pending !== m_pend[7:0] ||
                move_cnt !== m_move[1:0] || door_timer !== m_timer[2:0] || reopen_cnt !== m_reopen[1:0] ||
                nudge !== m_nudge[0] || passed !== m_passed[2:0] || idle_cnt !== m_idle[4:0] ||
                homing !== m_home[0] || door_open !== (m_state >= 2)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: state=%0d floor=%0d dir=%b pend=%h timer=%0d reopen=%0d nudge=%b passed=%0d idle=%0d home=%b expected %0d %0d %0d %h %0d %0d %0d %0d %0d %0d",
                             $time, state, floor, dir, pending, door_timer, reopen_cnt, nudge, passed, idle_cnt, homing,
                             m_state, m_floor, m_dir, m_pend, m_timer, m_reopen, m_nudge, m_passed, m_idle, m_home);
            end
        end
    endtask

    task model_step;
        integer here, above, below, latched, nf;
        begin
            if (rst) begin
                m_state = 0; m_floor = 0; m_dir = 1; m_pend = 0; m_move = 0; m_timer = 0; m_reopen = 0;
                m_nudge = 0; m_passed = 0; m_idle = 0; m_home = 0;
            end else begin
                here = 1 << m_floor;
                above = m_pend & ~((here << 1) - 1) & 255;
                below = m_pend & (here - 1);
                latched = (m_pend | call) & ~((m_state >= 2) ? here : 0) & 255;
                nf = m_dir ? (m_floor + 1) % 8 : (m_floor + 7) % 8;
                case (m_state)
                    0: begin
                        if (m_pend == 0) begin
                            m_pend = latched;
                            if (m_idle != 31) m_idle = m_idle + 1;
                            else if (m_floor != 0) begin
                                m_pend = latched | 1; m_home = 1; m_idle = 0; n_homes = n_homes + 1;
                            end
                        end else begin
                            m_idle = 0;
                            if (m_pend & here) begin
                                m_state = 2; m_pend = latched & ~here; m_timer = 0; m_reopen = 0; m_passed = 0;
                            end else begin
                                m_pend = latched;
                                m_state = 1; m_move = 0; m_passed = 0;
                                if (m_dir ? (above == 0) : (below == 0)) m_dir = !m_dir;
                            end
                        end
                    end
                    1: begin
                        m_move = (m_move + 1) % 4;
                        if (m_move == 0) begin
                            m_floor = nf;
                            if (nf == 0) m_home = 0;
                            if ((m_pend >> nf) & 1) begin
                                m_state = 2; m_pend = latched & ~(1 << nf); m_timer = 0; m_reopen = 0;
                                n_stops = n_stops + 1;
                                if (m_passed == 6) n_express = n_express + 1;
                            end else begin
                                m_pend = latched;
                                m_passed = m_passed + 1;
                            end
                        end else
                            m_pend = latched;
                    end
                    2: begin
                        m_pend = latched;
                        m_timer = (m_timer + 1) % 8;
                        if (m_timer == 0) m_state = 3;
                    end
                    default: begin
                        m_pend = latched;
                        if (door_block && !m_nudge && m_reopen != 3) begin
                            m_state = 2; m_timer = 0; m_reopen = m_reopen + 1;
                        end else if (m_timer == 3) begin
                            m_state = 0; m_timer = 0; m_nudge = 0; m_idle = 0;
                        end else begin
                            m_timer = m_timer + 1;
                            if (door_block) begin
                                if (!m_nudge) n_nudges = n_nudges + 1;
                                m_nudge = 1;
                            end
                        end
                    end
                endcase
            end
        end
    endtask

    task cycle;
        input [7:0] c; input b;
        begin
            @(negedge clk);
            check;
            call = c; door_block = b;
            @(posedge clk);
            model_step;
        end
    endtask

    task quiet;
        input integer c;
        integer j;
        begin
            for (j = 0; j < c; j = j + 1) cycle(8'd0, 1'b0);
        end
    endtask

    // wait (no calls, no block) until the lift is idle with its door shut
    task settle;
        begin
            cycle(8'd0, 1'b0);
            while (m_state != 0 || m_pend != 0) cycle(8'd0, 1'b0);
        end
    endtask

    initial begin
        errors = 0; n_stops = 0; n_homes = 0; n_nudges = 0; n_express = 0;
        seed = 32'h11F7_C0DE;
        call = 0; door_block = 0;
        rst = 1'b1;
        @(posedge clk); model_step;
        @(posedge clk); model_step;
        #1 rst = 1'b0;
        quiet(40);                                  // idle at the lobby: no homing
        cycle(8'h80, 0); settle;                    // lobby to top without a stop
        quiet(40);                                  // homing from the top
        settle;
        cycle(8'h08, 0); settle;                    // up to 3: two floors passed
        cycle(8'h02, 0); settle;                    // reverse at 3 (going up), down to 1
        cycle(8'h20, 0); settle;                    // reverse at 1, up to 5: three passed
        cycle(8'h20, 0); settle;                    // a call where the lift stands
        cycle(8'h01, 0);                            // down to the lobby; a call to 3 on the
        while (!(m_state == 1 && m_move == 3 && m_floor == 4)) cycle(8'd0, 0);   // edge it reaches 3 is
        cycle(8'h08, 0);                            // too late: it passes 3
        while (m_state != 3) cycle(8'd0, 0);        // a door blocked three times, then nudged
        cycle(8'd0, 1);
        while (m_state != 3) cycle(8'd0, 0);
        cycle(8'd0, 0); cycle(8'd0, 1);
        while (m_state != 3) cycle(8'd0, 0);
        cycle(8'd0, 0); cycle(8'd0, 0); cycle(8'd0, 1);
        while (m_state != 3) cycle(8'd0, 0);
        cycle(8'd0, 1); cycle(8'd0, 1);
        settle;
        for (n = 0; n < 60; n = n + 1) begin
            k = urand(0) % 8;
            density = (k < 3) ? 64 : (k < 6) ? 6 : 1;
            for (k = 0; k < 100; k = k + 1)
                cycle(((urand(0) % density) == 0) ? (1 << (urand(0) % 8)) | (urand(0) % 3 == 0 ? urand(0) : 0) : 8'd0,
                      (urand(0) % 4) == 0);
            if (urand(0) % 3 == 0) quiet(urand(0) % 50);
            if (urand(0) % 20 == 0) begin
                @(negedge clk); check; rst = 1'b1;
                @(posedge clk); model_step;
                #1 rst = 1'b0;
            end
        end
        @(negedge clk);
        check;
        if (n_stops < 100 || n_homes < 3 || n_nudges < 5 || n_express < 2) begin
            $display("coverage: stops=%0d homings=%0d nudges=%0d express=%0d", n_stops, n_homes, n_nudges, n_express);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d stops, %0d homings, %0d nudges, %0d express runs)",
                                  n_stops, n_homes, n_nudges, n_express);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
