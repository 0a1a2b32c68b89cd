`timescale 1ns/1ps
// Self-checking testbench for can_destuff_rx. A model is stepped at each rising edge and
// every output is compared each cycle. The directed part reaches every functional bin of
// coverage.yaml: good frames of DLC 0, 3, 8 and 12, frames with identifier 07C with and
// without data, a stuff error in the identifier, the DLC, the data and after the data, a
// form error in the end field, frames with fifteen and eighteen stuff bits, seven good
// frames in a row; then 500 random frames (good, unstuffed, with a bad end field, with random
// identifiers or 07C) between garbage bits, gaps of bit_en = 0 and a few resets.
module tb_can_destuff_rx;
    reg         clk = 1'b0;
    reg         rst_n;
    reg         bit_en;
    reg         rxd;
    wire [2:0]  state, run_len, ok_streak;
    wire [10:0] id;
    wire [3:0]  dlc, byte_cnt, stuff_cnt;
    wire [7:0]  rx_byte;
    wire [1:0]  idle_cnt;
    wire        id_hit, frame_ok, match, stuff_err, form_err;

    can_destuff_rx dut (.clk(clk), .rst_n(rst_n), .bit_en(bit_en), .rxd(rxd), .state(state), .id(id),
                        .dlc(dlc), .byte_cnt(byte_cnt), .rx_byte(rx_byte), .run_len(run_len),
                        .idle_cnt(idle_cnt), .stuff_cnt(stuff_cnt), .ok_streak(ok_streak), .id_hit(id_hit),
                        .frame_ok(frame_ok), .match(match), .stuff_err(stuff_err), .form_err(form_err));

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

    // model
    integer m_state, m_id, m_dlc, m_bytes, m_rx, m_run, m_idle, m_stuffs, m_streak, m_last, m_cnt, m_shift;
    reg     m_hit, m_ok, m_match, m_serr, m_ferr;
    integer errors, n, k, n_ok, n_serr, n_ferr, n_match;
    integer max_gap;

    task check;
        begin
            if (state !== m_state[2:0] || id !== m_id[10:0] || dlc !== m_dlc[3:0] || byte_cnt !== m_bytes[3:0] ||
                rx_byte !== m_rx[7:0] || run_len !== m_run[2:0] || idle_cnt !== m_idle[1:0] ||
                stuff_cnt !== m_stuffs[3:0] || ok_streak !== m_streak[2:0] || id_hit !== m_hit ||
                frame_ok !== m_ok || match !== m_match || stuff_err !== m_serr || form_err !== m_ferr) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: state=%0d id=%h dlc=%0d bytes=%0d run=%0d idle=%0d stuffs=%0d streak=%0d ok=%b serr=%b ferr=%b expected %0d %h %0d %0d %0d %0d %0d %0d %b %b %b",
                             $time, state, id, dlc, byte_cnt, run_len, idle_cnt, stuff_cnt, ok_streak, frame_ok,
                             stuff_err, form_err, m_state, m_id, m_dlc, m_bytes, m_run, m_idle, m_stuffs, m_streak,
                             m_ok, m_serr, m_ferr);
            end
        end
    endtask

    task model_reset;
        begin
            m_state = 0; m_id = 0; m_dlc = 0; m_bytes = 0; m_rx = 0; m_run = 0; m_idle = 0; m_stuffs = 0;
            m_streak = 0; m_last = 1; m_cnt = 0; m_shift = 0;
            m_hit = 0; m_ok = 0; m_match = 0; m_serr = 0; m_ferr = 0;
        end
    endtask

    task model_step;
        integer nb;
        begin
            m_ok = 0; m_match = 0; m_serr = 0; m_ferr = 0;
            if (bit_en) begin
                if (m_state == 0) begin
                    if (rxd) begin
                        if (m_idle < 3) m_idle = m_idle + 1;
                    end else if (m_idle == 3) begin
                        m_state = 1; m_cnt = 0; m_run = 1; m_last = 0; m_stuffs = 0; m_hit = 0;
                    end else
                        m_idle = 0;
                end else if (m_run == 5 && (m_state != 4 || m_cnt == 0)) begin
                    if (rxd == m_last) begin
                        m_state = 0; m_idle = 0; m_serr = 1; m_streak = 0; n_serr = n_serr + 1;
                    end else begin
                        m_last = rxd; m_run = 1;
                        if (m_stuffs < 15) m_stuffs = m_stuffs + 1;
                    end
                end else begin
                    if (m_state != 4) begin
                        m_run = (rxd == m_last) ? m_run + 1 : 1;
                        m_last = rxd;
                    end
                    case (m_state)
                        1: begin
                            m_id = ((m_id << 1) | rxd) & 11'h7FF;
                            m_cnt = m_cnt + 1;
                            if (m_cnt == 11) begin m_state = 2; m_cnt = 0; m_hit = (m_id == 11'h07C); end
                        end
                        2: begin
                            m_dlc = ((m_dlc << 1) | rxd) & 15;
                            m_cnt = m_cnt + 1; m_bytes = 0;
                            if (m_cnt == 4) begin m_state = (m_dlc == 0) ? 4 : 3; m_cnt = 0; end
                        end
                        3: begin
                            m_shift = ((m_shift << 1) | rxd) & 255;
                            m_cnt = m_cnt + 1;
                            if (m_cnt == 8) begin
                                m_rx = m_shift; m_bytes = m_bytes + 1; m_cnt = 0;
                                nb = (m_dlc > 8) ? 8 : m_dlc;
                                if (m_bytes == nb) m_state = 4;
                            end
                        end
                        default: begin
                            if (!rxd) begin
                                m_state = 0; m_idle = 0; m_ferr = 1; m_streak = 0; n_ferr = n_ferr + 1;
                            end else if (m_cnt == 2) begin
                                m_state = 0; m_idle = 3; m_ok = 1; m_match = m_hit; n_ok = n_ok + 1;
                                if (m_hit) n_match = n_match + 1;
                                if (m_streak < 7) m_streak = m_streak + 1;
                            end else
                                m_cnt = m_cnt + 1;
                        end
                    endcase
                end
            end
        end
    endtask

    task cycle;
        input en; input b;
        begin
            @(negedge clk);
            check;
            bit_en = en; rxd = b;
            @(posedge clk);
            model_step;
        end
    endtask

    // one bit on the bus, after 0..max_gap cycles with bit_en = 0
    task bus_bit;
        input b;
        integer j, g;
        begin
            g = (max_gap == 0) ? 0 : urand(0) % (max_gap + 1);
            for (j = 0; j < g; j = j + 1) cycle(1'b0, urand(0));
            cycle(1'b1, b);
        end
    endtask

    // the sender's bit stuffing
    integer t_last, t_run;
    reg     t_stuff;     // 0: the sender omits its stuff bits (a stuff error follows)
    task send_bit;
        input b;
        begin
            if (t_run == 5 && t_stuff) begin
                bus_bit(!t_last[0]);
                t_last = !t_last[0]; t_run = 1;
            end
            bus_bit(b);
            t_run = (b == t_last[0]) ? t_run + 1 : 1;
            t_last = b;
        end
    endtask

    reg [7:0] dbytes [0:7];
    // a frame: idle bits, SOF, identifier, DLC, data, end field. nostuff: the field where the
    // sender stops stuffing (1 identifier, 2 DLC, 3 data, 4 the stuff bit after the data,
    // 0 never); end_bits: the end field, MSB first (3'b111 is good)
    task frame;
        input [10:0] f_id; input [3:0] f_dlc; input integer nostuff; input [2:0] end_bits;
        integer j, b, nb;
        begin
            for (j = 0; j < 3; j = j + 1) bus_bit(1'b1);
            bus_bit(1'b0);
            t_last = 0; t_run = 1; t_stuff = (nostuff != 1);
            for (j = 10; j >= 0; j = j - 1) send_bit(f_id[j]);
            t_stuff = (nostuff == 0 || nostuff > 2);
            for (j = 3; j >= 0; j = j - 1) send_bit(f_dlc[j]);
            nb = (f_dlc > 8) ? 8 : f_dlc;
            t_stuff = (nostuff == 0 || nostuff > 3);
            for (b = 0; b < nb; b = b + 1)
                for (j = 7; j >= 0; j = j - 1) send_bit(dbytes[b][j]);
            if (t_run == 5 && nostuff != 4) bus_bit(!t_last[0]);
            for (j = 2; j >= 0; j = j - 1) bus_bit(end_bits[j]);
        end
    endtask

    task fill;
        input [7:0] v; input rnd;
        integer j;
        begin
            for (j = 0; j < 8; j = j + 1) dbytes[j] = rnd ? urand(0) : v;
        end
    endtask

    initial begin
        errors = 0; n_ok = 0; n_serr = 0; n_ferr = 0; n_match = 0;
        seed = 32'h0CA7_5EED;
        bit_en = 0; rxd = 1; max_gap = 0;
        t_last = 1; t_run = 0; t_stuff = 1;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        cycle(1, 0); cycle(1, 1); cycle(1, 0);                // dominant bits before integration
        fill(8'hA5, 0);
        frame(11'h123, 4'd0, 0, 3'b111);                     // good, no data
        frame(11'h456, 4'd3, 0, 3'b111);
        fill(8'h00, 0);
        frame(11'h000, 4'd8, 0, 3'b111);                     // fifteen stuff bits
        fill(8'h1E, 0);
        frame(11'h7FF, 4'd12, 0, 3'b111);                    // eighteen
        frame(11'h07C, 4'd0, 0, 3'b111);                     // the magic identifier
        fill(8'h55, 0);
        frame(11'h07C, 4'd2, 0, 3'b111);
        frame(11'h555, 4'd1, 0, 3'b111);                     // seven in a row
        frame(11'h2AA, 4'd1, 0, 3'b111);
        frame(11'h000, 4'd0, 1, 3'b111);                     // stuff error in the identifier
        frame(11'h00F, 4'd15, 2, 3'b111);                    // in the DLC
        fill(8'h00, 0);
        frame(11'h155, 4'd1, 3, 3'b111);                     // in the data
        fill(8'h1F, 0);
        frame(11'h155, 4'd1, 4, 3'b111);                     // after the data
        frame(11'h155, 4'd1, 0, 3'b101);                     // form error
        max_gap = 3;
        fill(8'h00, 1);
        frame(11'h07C, 4'd5, 0, 3'b111);
        frame(11'h07C, 4'd5, 0, 3'b110);
        for (n = 0; n < 500; n = n + 1) begin
            max_gap = (urand(0) % 3 == 0) ? urand(0) % 4 : 0;
            fill(8'h00, 1);
            if (urand(0) % 4 == 0) fill(urand(0) % 2 ? 8'h00 : 8'hFF, 0);
            k = urand(0) % 16;
            if (k < 8)       frame(urand(0), urand(0), 0, 3'b111);
            else if (k < 10) frame(11'h07C, urand(0), 0, 3'b111);
            else if (k < 12) frame(urand(0), urand(0), urand(0) % 5, 3'b111);
            else if (k < 13) frame(urand(0), urand(0), 0, urand(0));
            else if (k < 14) frame(urand(0) & 11'h00F, urand(0) % 3, 0, 3'b111);
            else             for (k = urand(0) % 12; k > 0; k = k - 1) cycle(urand(0), urand(0));
            if (urand(0) % 120 == 0) begin
                @(negedge clk); check; bit_en = 0;
                rst_n = 1'b0;
                #1 model_reset;
                check;
                @(posedge clk); #1 rst_n = 1'b1;
            end
        end
        @(negedge clk);
        check;
        if (n_ok < 100 || n_serr < 20 || n_ferr < 10 || n_match < 20) begin
            $display("coverage: good=%0d stuff errors=%0d form errors=%0d matches=%0d", n_ok, n_serr, n_ferr, n_match);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d good frames, %0d stuff errors, %0d form errors, %0d matches)",
                                  n_ok, n_serr, n_ferr, n_match);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
