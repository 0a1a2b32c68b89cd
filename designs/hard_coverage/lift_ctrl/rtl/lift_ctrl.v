// lift_ctrl: controller of a lift serving eight floors. Each cycle the call buttons
// call[7:0] are latched into pending (a call to the floor where the door is open is
// served at once and not latched). IDLE: a pending call at the current floor opens the
// door; otherwise, with calls pending, the lift departs in its direction when a call lies
// ahead, else it reverses. A floor takes four cycles to travel (move_cnt); arriving at a
// floor with a pending call stops there (the call is cleared and the door opens), else
// the lift passes it (passed counts the floors passed since departure, 0 for a door
// opened where the lift stands). The door stays
// open eight cycles (door_timer), then closes over four; door_block while closing
// reopens it, up to three times per stop, after which the door is nudged shut (nudge)
// whatever blocks it. After 32 idle cycles without any call away from the lobby, the
// lift calls itself to the lobby (homing, cleared on arrival). Synchronous active-high
// reset.
module lift_ctrl (
    input  wire       clk,
    input  wire       rst,
    input  wire [7:0] call,
    input  wire       door_block,
    output reg  [1:0] state,
    output reg  [2:0] floor,
    output reg        dir,         // 1: up
    output reg  [7:0] pending,
    output reg  [1:0] move_cnt,
    output reg  [2:0] door_timer,
    output reg  [1:0] reopen_cnt,
    output reg        nudge,
    output reg  [2:0] passed,
    output reg  [4:0] idle_cnt,
    output reg        homing,
    output wire       door_open
);
    localparam [1:0] S_IDLE = 2'd0, S_MOVE = 2'd1, S_OPEN = 2'd2, S_CLOSE = 2'd3;

    wire [7:0] here    = 8'd1 << floor;
    wire [7:0] above   = pending & ~((here << 1) - 8'd1);   // floors above the lift
    wire [7:0] below   = pending & (here - 8'd1);           // floors below
    wire [2:0] next_fl = dir ? floor + 3'd1 : floor - 3'd1;
    wire [7:0] served  = door_open ? here : 8'd0;
    wire [7:0] latched = (pending | call) & ~served;

    assign door_open = (state == S_OPEN) || (state == S_CLOSE);

    always @(posedge clk) begin
        if (rst) begin
            state      <= S_IDLE;
            floor      <= 3'd0;
            dir        <= 1'b1;
            pending    <= 8'd0;
            move_cnt   <= 2'd0;
            door_timer <= 3'd0;
            reopen_cnt <= 2'd0;
            nudge      <= 1'b0;
            passed     <= 3'd0;
            idle_cnt   <= 5'd0;
            homing     <= 1'b0;
        end else begin
            pending <= latched;
            case (state)
                S_IDLE: begin
                    if (pending == 8'd0) begin
                        if (idle_cnt != 5'd31) begin
                            idle_cnt <= idle_cnt + 5'd1;
                        end else if (floor != 3'd0) begin
                            pending <= latched | 8'd1;     // return to the lobby
                            homing  <= 1'b1;
                            idle_cnt <= 5'd0;
                        end
                    end else begin
                        idle_cnt <= 5'd0;
                        if ((pending & here) != 8'd0) begin
                            state      <= S_OPEN;          // a call where the lift stands
                            pending    <= latched & ~here;
                            door_timer <= 3'd0;
                            reopen_cnt <= 2'd0;
                            passed     <= 3'd0;
                        end else begin
                            state    <= S_MOVE;
                            move_cnt <= 2'd0;
                            passed   <= 3'd0;
                            if (dir ? (above == 8'd0) : (below == 8'd0))
                                dir <= ~dir;               // nothing ahead: reverse
                        end
                    end
                end
                S_MOVE: begin
                    move_cnt <= move_cnt + 2'd1;
                    if (move_cnt == 2'd3) begin
                        floor <= next_fl;
                        if (next_fl == 3'd0)
                            homing <= 1'b0;
                        if (pending[next_fl]) begin
                            state      <= S_OPEN;          // stop here
                            pending    <= latched & ~(8'd1 << next_fl);
                            door_timer <= 3'd0;
                            reopen_cnt <= 2'd0;
                        end else begin
                            passed <= passed + 3'd1;
                        end
                    end
                end
                S_OPEN: begin
                    door_timer <= door_timer + 3'd1;
                    if (door_timer == 3'd7) begin
                        state      <= S_CLOSE;
                        door_timer <= 3'd0;
                    end
                end
                default: begin                             // S_CLOSE
                    if (door_block && !nudge && reopen_cnt != 2'd3) begin
                        state      <= S_OPEN;              // blocked: reopen
                        door_timer <= 3'd0;
                        reopen_cnt <= reopen_cnt + 2'd1;
                    end else if (door_timer == 3'd3) begin
                        state      <= S_IDLE;              // shut
                        door_timer <= 3'd0;
                        nudge      <= 1'b0;
                        idle_cnt   <= 5'd0;
                    end else begin
                        door_timer <= door_timer + 3'd1;
                        if (door_block)
                            nudge <= 1'b1;                 // reopened three times: shut it anyway
                    end
                end
            endcase
        end
    end
endmodule
