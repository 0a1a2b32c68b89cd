`timescale 1ns/1ps
// Self-checking testbench for crc_magic: checks the CRC against the standard check
// value (CRC-16/CCITT-FALSE of "123456789" = 29B1), then sends 400 frames: frames
// whose last two bytes force the CRC to the magic C0DE (4 to 64 bytes), corrupted
// ones, runts, over-long frames and frames with idle gaps. A model (the CRC computed
// a byte at a time with the data xored into the high byte) is stepped at each rising
// edge; crc, frame_done, match, runt, too_long and frame_len are checked every cycle.
module tb_crc_magic;
    reg         clk = 1'b0;
    reg         rst_n;
    reg         valid, last;
    reg  [7:0]  data;
    wire [15:0] crc;
    wire        frame_done, match, runt, too_long;
    wire [6:0]  frame_len;

    crc_magic dut (.clk(clk), .rst_n(rst_n), .valid(valid), .data(data), .last(last), .crc(crc),
                   .frame_done(frame_done), .match(match), .runt(runt), .too_long(too_long),
                   .frame_len(frame_len));

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

    // model CRC: data xored into the high byte, then eight shifts
    function [15:0] m_crc_byte;
        input [15:0] c;
        input [7:0]  d;
        integer k;
        begin
            m_crc_byte = c ^ {d, 8'h00};
            for (k = 0; k < 8; k = k + 1)
                m_crc_byte = m_crc_byte[15] ? ((m_crc_byte << 1) ^ 16'h1021) : (m_crc_byte << 1);
        end
    endfunction

    localparam [15:0] K = 16'h4727;  // appending {S ^ K} to a frame in CRC state S gives C0DE

    reg [15:0] m_crc, c_next, s_crc;
    integer    m_len, m_flen;
    reg        m_done, m_match, m_runt, m_long;
    integer    errors, n, i, flen, kind, n_match, n_long, n_runt, n_bad;

    task check;
        begin
            if (crc !== m_crc || frame_done !== m_done || match !== m_match || runt !== m_runt ||
                too_long !== m_long || frame_len !== m_flen[6:0]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: crc=%h done=%b match=%b runt=%b long=%b len=%0d expected crc=%h %b%b%b%b len=%0d",
                             $time, crc, frame_done, match, runt, too_long, frame_len,
                             m_crc, m_done, m_match, m_runt, m_long, m_flen);
            end
        end
    endtask

    task model_step;
        begin
            m_done = 0; m_match = 0; m_runt = 0; m_long = 0;
            if (valid) begin
                c_next = m_crc_byte(m_crc, data);
                m_len  = (m_len == 127) ? 127 : m_len + 1;
                if (last) begin
                    m_done = 1; m_flen = m_len;
                    if (m_len < 4) begin m_runt = 1; n_runt = n_runt + 1; end
                    else if (m_len > 64) begin m_long = 1; n_long = n_long + 1; end
                    else if (c_next == 16'hC0DE) begin m_match = 1; n_match = n_match + 1; end
                    else n_bad = n_bad + 1;
                    m_crc = 16'hFFFF; m_len = 0;
                end else
                    m_crc = c_next;
            end
        end
    endtask

    task cycle;
        input v; input [7:0] d; input l;
        begin
            @(negedge clk);
            check;
            valid = v; data = d; last = l;
            @(posedge clk);
            model_step;
        end
    endtask

    // a frame of `len` bytes; good = 1 makes the last two bytes force the magic CRC
    task frame;
        input integer len; input good; input gaps;
        integer j;
        begin
            for (j = 0; j < len; j = j + 1) begin
                if (gaps && (urand(0) % 4 == 0)) cycle(1'b0, urand(0), urand(0));
                if (good && j == len - 2) begin
                    s_crc = m_crc ^ K;          // the CRC state before the two forcing bytes
                    cycle(1'b1, s_crc[15:8], 1'b0);
                end else if (good && j == len - 1) cycle(1'b1, s_crc[7:0], 1'b1);
                else cycle(1'b1, urand(0), j == len - 1);
            end
        end
    endtask

    initial begin
        errors = 0; n_match = 0; n_long = 0; n_runt = 0; n_bad = 0;
        seed = 32'hC0DE_1021;
        valid = 0; last = 0; data = 0;
        m_crc = 16'hFFFF; m_len = 0; m_flen = 0; m_done = 0; m_match = 0; m_runt = 0; m_long = 0;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        // standard check value
        cycle(1, "1", 0); cycle(1, "2", 0); cycle(1, "3", 0); cycle(1, "4", 0); cycle(1, "5", 0);
        cycle(1, "6", 0); cycle(1, "7", 0); cycle(1, "8", 0);
        cycle(1, "9", 0);
        if (m_crc !== 16'h29B1) begin errors = errors + 1; $display("check value %h, expected 29B1", m_crc); end
        cycle(1, 8'h00, 1);
        frame(4, 1, 0); frame(64, 1, 0); frame(65, 1, 0); frame(3, 0, 0); frame(130, 0, 1);
        for (n = 0; n < 400; n = n + 1) begin
            kind = urand(0) % 10;
            flen = (kind < 6) ? 4 + urand(0) % 61 : (kind < 8) ? 1 + urand(0) % 3 : 60 + urand(0) % 10;
            frame(flen, kind < 5 || kind == 8, urand(0) % 2);
            if (urand(0) % 100 == 0) begin
                @(negedge clk); check; valid = 0;
                #2 rst_n = 1'b0;
                #1 m_crc = 16'hFFFF; m_len = 0; m_flen = 0; m_done = 0; m_match = 0; m_runt = 0; m_long = 0;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_match < 50 || n_long < 10 || n_runt < 20 || n_bad < 20) begin
            $display("coverage: match=%0d too_long=%0d runt=%0d bad=%0d", n_match, n_long, n_runt, n_bad);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d matching frames)", n_match);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
